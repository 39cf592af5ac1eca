import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'webhooks', rootDir: import.meta.dirname };
