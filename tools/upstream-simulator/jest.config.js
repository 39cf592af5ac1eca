import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'upstream-simulator', rootDir: import.meta.dirname };
