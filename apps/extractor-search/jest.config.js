import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'extractor-search', rootDir: import.meta.dirname };
