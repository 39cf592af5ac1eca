import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'architecture', rootDir: import.meta.dirname };
