/**
 * What a task's job id may be made of, checked at the gateway (GET /extractTask/{jobId}) and again at task-service:
 * letters, digits, `_` and `-`, 1-200 of them. No `:`, which BullMQ refuses in ids; ours are `<queue key>_<uuid>`.
 */
export const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

/** The message of the VALIDATION_FAILED (field `jobId`) for an id that does not match JOB_ID_PATTERN. */
export const JOB_ID_RULE = 'jobId must be 1-200 letters, digits, "_" or "-"';
