export { BROWSER_PASSABLE_WALLS, UpstreamWallError, WALL_NAMES, wallOf, type WallKind } from './upstream-wall.error.js';
