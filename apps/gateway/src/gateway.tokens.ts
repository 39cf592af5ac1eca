/** Injection token of the validated GatewayEnv. */
export const GATEWAY_ENV = Symbol('GATEWAY_ENV');

/** Injection token of the process's TrawlMetrics (Prometheus registry). */
export const GATEWAY_METRICS = Symbol('GATEWAY_METRICS');
