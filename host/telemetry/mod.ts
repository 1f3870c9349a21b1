/**
 * What the host tells the team's observability stack: its metrics, read by
 * Prometheus from the Hook API (`GET /metrics`).
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
