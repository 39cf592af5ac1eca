/** Where the queue dashboard (Bull Board) is mounted, outside the API prefix. */
export const QUEUE_BOARD_PATH = '/admin/queues';
