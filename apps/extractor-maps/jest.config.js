import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'extractor-maps', rootDir: import.meta.dirname };
