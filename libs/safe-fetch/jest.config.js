import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'safe-fetch', rootDir: import.meta.dirname };
