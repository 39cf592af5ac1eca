import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'keys-cli', rootDir: import.meta.dirname };
