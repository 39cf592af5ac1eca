import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'redis-migrate', rootDir: import.meta.dirname };
