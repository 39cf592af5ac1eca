/** Injection token of the validated WebhookDispatcherEnv. */
export const WEBHOOK_DISPATCHER_ENV = Symbol('WEBHOOK_DISPATCHER_ENV');
