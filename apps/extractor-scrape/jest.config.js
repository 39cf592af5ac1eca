import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'extractor-scrape', rootDir: import.meta.dirname };
