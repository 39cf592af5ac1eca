/** Injection token of the validated GatewayEnv. */
export const GATEWAY_ENV = Symbol('GATEWAY_ENV');
