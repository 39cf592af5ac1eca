import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'parse', rootDir: import.meta.dirname };
