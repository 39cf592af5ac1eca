import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'service-runtime', rootDir: import.meta.dirname };
