/**
 * The host's telemetry, started with the host when something reads it: the
 * metrics when the Hook API serves `GET /metrics` or OTLP export is on, and
 * the spans of tool calls when OTLP export is on. Off, nothing of it is
 * loaded (the CLI imports this module only then).
 *
 * @module
 */

import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { CallObserver } from "../../tools/calls.ts";
import type { HostStatus } from "../../tools/observe/observation.ts";
import type { TelemetrySettings } from "../config/mod.ts";
import { HostMetrics, hostResource } from "./metrics.ts";
import { CallTracing } from "./tracing.ts";

/** The running telemetry. */
export interface Telemetry {
  /** The metrics (`GET /metrics` reads them; exported too when OTLP is on). */
  readonly metrics: HostMetrics;
  /** Send what is buffered, and stop. */
  close(): Promise<void>;
}

/**
 * Start the host's metrics, and its OTLP export when configured.
 *
 * @param host What the telemetry reads and watches: the host's status, its calls.
 * @param settings Where to export, or null (metrics for `GET /metrics` only).
 * @param version The host's version.
 * @returns The telemetry.
 */
export function startTelemetry(
  host: { status: () => HostStatus; observe: (observer: CallObserver) => void },
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
  return {
    metrics,
    close: async () => {
      await Promise.allSettled([metrics.close(), tracing?.close()]);
    },
  };
}
