import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'gateway', rootDir: import.meta.dirname };
