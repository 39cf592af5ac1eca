import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'extractor-retail', rootDir: import.meta.dirname };
