/** Injection token of the validated TaskServiceEnv. */
export const TASK_SERVICE_ENV = Symbol('TASK_SERVICE_ENV');

/** Injection token of the service's TrawlMetrics, or null when there are none (tests). */
export const TASK_METRICS = Symbol('TASK_METRICS');

/** Injection token of the Redis client of crawls (the task Redis, ADR 0026). */
export const CRAWL_REDIS = Symbol('CRAWL_REDIS');
