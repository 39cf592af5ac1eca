import { IsIn, IsOptional, IsString } from 'class-validator';

/**
 * The standard OpenTelemetry variables that decide whether tracing starts. Load it with `loadEnv(TelemetryEnv)` from
 * `@trawl/config` (the one place that reads the environment); the SDK itself reads the rest of the OTEL_* variables
 * (headers, protocol, sampler, resource attributes) once it is started.
 */
export class TelemetryEnv {
  /** Base OTLP endpoint, e.g. http://otel-collector:4318. Setting it turns tracing on (OTLP over HTTP). */
  @IsOptional()
  @IsString()
  OTEL_EXPORTER_OTLP_ENDPOINT: string = '';

  /** Traces-only OTLP endpoint (full URL, e.g. http://otel-collector:4318/v1/traces). Also turns tracing on. */
  @IsOptional()
  @IsString()
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: string = '';

  /** `otlp`, `console`, `zipkin` or `none`. Any value but `none` turns tracing on. */
  @IsOptional()
  @IsString()
  OTEL_TRACES_EXPORTER: string = '';

  /** `true` keeps everything off whatever else is set. */
  @IsOptional()
  @IsIn(['', 'true', 'false'])
  OTEL_SDK_DISABLED: string = '';

  /** Overrides the service name the app passes (rarely needed). */
  @IsOptional()
  @IsString()
  OTEL_SERVICE_NAME: string = '';
}

/** What `startTelemetry` reads; `TelemetryEnv`, an app's own env class or a plain record all fit. */
export type TelemetrySwitches = Readonly<Partial<Record<keyof TelemetryEnv, string | undefined>>>;
