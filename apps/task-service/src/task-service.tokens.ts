/** Injection token of the validated TaskServiceEnv. */
export const TASK_SERVICE_ENV = Symbol('TASK_SERVICE_ENV');

/** Injection token of the service's TrawlMetrics, or null when there are none (tests). */
export const TASK_METRICS = Symbol('TASK_METRICS');
