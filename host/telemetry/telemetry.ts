/**
 * The host's telemetry, started with the host when something reads it: the
 * metrics when the Hook API serves `GET /metrics` or OTLP export is on, and
 * the spans of tool calls and of the other MCP requests when OTLP export is
 * on. Off, nothing of it is loaded (the CLI imports this module only then),
 * and the session log, which tells it of each message and process, has no
 * watcher.
 *
 * @module
 */

import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { CallObserver } from "../../tools/calls.ts";
import type { HostStatus } from "../../tools/observe/observation.ts";
import type { SubprocessRecord } from "../../tools/sandbox.ts";
import type { TelemetrySettings } from "../config/mod.ts";
import { HostMetrics, hostResource } from "./metrics.ts";
import { RequestTracing } from "./requests.ts";
import { CallTracing } from "./tracing.ts";

/** The running telemetry. */
export interface Telemetry {
  /** The metrics (`GET /metrics` reads them; exported too when OTLP is on). */
  readonly metrics: HostMetrics;
  /** Send what is buffered, and stop. */
  close(): Promise<void>;
}

/** What tells of every MCP message and ended process: the host's session log. */
export interface MessageSource {
  /** The stdio connection's session id. */
  readonly id: string;
  /** Tell one watcher of them all. */
  watch(watcher: {
    message(direction: "in" | "out", message: unknown, session: string, client?: string): void;
    process(record: SubprocessRecord): void;
  }): void;
}

/**
 * Start the host's metrics, and its OTLP export when configured.
 *
 * @param host What the telemetry reads and watches: the host's status, its calls, and (for the
 *   spans of requests and processes) its session log.
 * @param settings Where to export, or null (metrics for `GET /metrics` only).
 * @param version The host's version.
 * @returns The telemetry.
 */
export function startTelemetry(
  host: {
    status: () => HostStatus;
    observe: (observer: CallObserver) => void;
    sessions?: MessageSource;
  },
  settings: TelemetrySettings | null,
  version: string,
): Telemetry {
  const readers = settings
    ? [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: settings.metrics }),
        exportIntervalMillis: settings.metricIntervalMs,
        exportTimeoutMillis: Math.min(settings.metricIntervalMs, 30_000),
      }),
    ]
    : [];
  const metrics = new HostMetrics(host.status, version, readers);
  host.observe(metrics);
  const tracing = settings
    ? new CallTracing(settings.traces, hostResource(version), settings.spanDelayMs)
    : undefined;
  if (tracing) host.observe(tracing);
  if (tracing && host.sessions) watchSessions(host.sessions, tracing);
  return {
    metrics,
    close: async () => {
      await Promise.allSettled([metrics.close(), tracing?.close()]);
    },
  };
}

/** Spans of the requests other than `tools/call`, and of the processes calls run. */
function watchSessions(sessions: MessageSource, tracing: CallTracing): void {
  const requests = new RequestTracing(tracing.tracer, sessions.id);
  sessions.watch({
    message: (direction, message, session, client) =>
      requests.message(direction, message, session, client),
    process: (record) => {
      try {
        tracing.process(record);
      } catch { /* Telemetry never breaks the log. */ }
    },
  });
}
