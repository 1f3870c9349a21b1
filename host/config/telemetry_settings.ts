/**
 * OpenTelemetry export (`telemetry` section, or the standard
 * `OTEL_EXPORTER_OTLP_*` variables): where the host sends its spans and
 * metrics over OTLP/HTTP, resolved. Off unless one of them names an
 * endpoint; `OTEL_SDK_DISABLED=true` turns it off. Only a config file
 * outside the roots may set the section (a cloned repository's config would
 * otherwise send the host's telemetry where it likes).
 *
 * @module
 */

import type { TelemetrySection } from "./schema.ts";

/** The variables the OpenTelemetry SDK reads (granted to the served process when export is on). */
export const TELEMETRY_ENV: readonly string[] = ["OTEL_*"];

/** Where the spans and metrics go. */
export interface TelemetrySettings {
  /** The OTLP/HTTP URL spans are posted to (`…/v1/traces`). */
  readonly traces: string;
  /** The OTLP/HTTP URL metrics are posted to (`…/v1/metrics`). */
  readonly metrics: string;
  /** Who named them: the config file, or the environment. */
  readonly from: "config" | "environment";
  /** How long spans wait to be sent in a batch (`OTEL_BSP_SCHEDULE_DELAY`, default 5 s). */
  readonly spanDelayMs: number;
  /** How often metrics are sent (`OTEL_METRIC_EXPORT_INTERVAL`, default 60 s). */
  readonly metricIntervalMs: number;
}

/**
 * The OTLP endpoints, or null when export is off.
 *
 * @param section The `telemetry` section (from a config file outside the roots).
 * @param env Reads a variable (undefined when unset or not readable).
 * @returns The settings, frozen.
 * @throws {TypeError} When an endpoint is not an http(s) URL.
 */
export function telemetrySettings(
  section: TelemetrySection | undefined,
  env: (name: string) => string | undefined,
): TelemetrySettings | null {
  if (env("OTEL_SDK_DISABLED")?.trim().toLowerCase() === "true") return null;
  const urls = endpoints(section, env);
  if (urls === null) return null;
  const ms = (name: string, fallback: number) => {
    const value = Number(env(name));
    return Number.isInteger(value) && value > 0 ? Math.min(value, 3_600_000) : fallback;
  };
  return Object.freeze({
    ...urls,
    spanDelayMs: ms("OTEL_BSP_SCHEDULE_DELAY", 5_000),
    metricIntervalMs: ms("OTEL_METRIC_EXPORT_INTERVAL", 60_000),
  });
}

/** The traces and metrics URLs: the section's endpoint, else the environment's. */
function endpoints(
  section: TelemetrySection | undefined,
  env: (name: string) => string | undefined,
): Pick<TelemetrySettings, "traces" | "metrics" | "from"> | null {
  const configured = section?.otlp?.endpoint;
  if (configured !== undefined) {
    const base = endpoint(configured, "telemetry.otlp.endpoint");
    return { traces: signal(base, "traces"), metrics: signal(base, "metrics"), from: "config" };
  }
  const general = env("OTEL_EXPORTER_OTLP_ENDPOINT");
  const traces = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const metrics = env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
  if (!general && !traces && !metrics) return null;
  const base = general ? endpoint(general, "OTEL_EXPORTER_OTLP_ENDPOINT") : undefined;
  const specific = (value: string | undefined, name: string, kind: "traces" | "metrics") =>
    value ? endpoint(value, name).href : base ? signal(base, kind) : undefined;
  const tracesUrl = specific(traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "traces");
  const metricsUrl = specific(metrics, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "metrics");
  // One signal named alone: the other goes to the same collector, at its standard path.
  const origin = new URL(new URL((tracesUrl ?? metricsUrl)!).origin);
  return {
    traces: tracesUrl ?? signal(origin, "traces"),
    metrics: metricsUrl ?? signal(origin, "metrics"),
    from: "environment",
  };
}

/**
 * The `host:port` pairs the served process connects to for export.
 *
 * @param settings The telemetry settings, or null.
 * @returns Deno `--allow-net` entries.
 */
export function telemetryNet(settings: TelemetrySettings | null): string[] {
  if (settings === null) return [];
  return [...new Set([settings.traces, settings.metrics].map((url) => hostAndPort(new URL(url))))];
}

function hostAndPort(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

function endpoint(text: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new TypeError(
      `${name} is not a URL: "${text}" (give the collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`${name} must be an http or https URL (OTLP/HTTP), not "${text}"`);
  }
  return url;
}

/** A signal's path under a base endpoint, as the OTLP exporter's own rule makes it. */
function signal(base: URL, kind: "traces" | "metrics"): string {
  const path = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
  return new URL(`${path}v1/${kind}`, base).href;
}
