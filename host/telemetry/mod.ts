/**
 * What the host tells the team's observability stack: its metrics, read by
 * Prometheus from the Hook API (`GET /metrics`), and, when OTLP export is
 * configured, its metrics and the spans of its tool calls and other MCP
 * requests, sent to an OpenTelemetry collector.
 * Other folders import from here.
 *
 * @module
 */

export {
  type CallOutcomeLabel,
  DURATION_BUCKETS_S,
  HostMetrics,
  MAX_LABEL_VALUES,
  outcomeLabel,
  PROMETHEUS_CONTENT_TYPE,
} from "./metrics.ts";
export { RequestTracing, withoutSecrets } from "./requests.ts";
export { CallTracing, errorType } from "./tracing.ts";
export { type MessageSource, startTelemetry, type Telemetry } from "./telemetry.ts";
