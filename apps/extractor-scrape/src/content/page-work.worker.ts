import { digestPage } from './page-digest.js';

/** The page-work pool's worker: one digest per task (see page-work.pool.ts). */
export default digestPage;
