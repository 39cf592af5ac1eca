import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'keys', rootDir: import.meta.dirname };
