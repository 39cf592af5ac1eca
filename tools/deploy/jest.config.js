import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'deploy', rootDir: import.meta.dirname };
