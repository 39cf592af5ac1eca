import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'tasks', rootDir: import.meta.dirname };
