import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'parsers', rootDir: import.meta.dirname };
