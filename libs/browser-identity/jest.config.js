import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'browser-identity', rootDir: import.meta.dirname };
