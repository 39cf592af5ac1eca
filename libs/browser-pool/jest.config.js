import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'browser-pool', rootDir: import.meta.dirname };
