import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'testing', rootDir: import.meta.dirname };
