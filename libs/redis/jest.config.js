import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'redis', rootDir: import.meta.dirname };
