/** Injection token of the validated WebhookDispatcherEnv. */
export const WEBHOOK_DISPATCHER_ENV = Symbol('WEBHOOK_DISPATCHER_ENV');

/** Injection token of the service's TrawlMetrics, or null when there are none (tests). */
export const WEBHOOK_METRICS = Symbol('WEBHOOK_METRICS');
