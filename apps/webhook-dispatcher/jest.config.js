import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'webhook-dispatcher', rootDir: import.meta.dirname };
