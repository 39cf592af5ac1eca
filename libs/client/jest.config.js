import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'client', rootDir: import.meta.dirname };
