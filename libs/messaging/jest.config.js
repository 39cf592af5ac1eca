import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'messaging', rootDir: import.meta.dirname };
