import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'contracts', rootDir: import.meta.dirname };
