import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'config', rootDir: import.meta.dirname };
