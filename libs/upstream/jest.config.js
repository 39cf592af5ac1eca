import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'upstream', rootDir: import.meta.dirname };
