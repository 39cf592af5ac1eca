import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'crawl', rootDir: import.meta.dirname };
