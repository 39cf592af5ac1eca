/** Injection token of the validated TaskServiceEnv. */
export const TASK_SERVICE_ENV = Symbol('TASK_SERVICE_ENV');
