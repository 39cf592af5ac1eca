import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'telemetry', rootDir: import.meta.dirname };
