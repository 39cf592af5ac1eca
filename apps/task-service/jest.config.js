import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'task-service', rootDir: import.meta.dirname };
