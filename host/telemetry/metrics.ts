/**
 * The host's metrics, recorded with OpenTelemetry's metrics SDK and read in
 * Prometheus's text format (`GET /metrics` on the Hook API port): tool
 * calls by tool, outcome and client, their duration (a wait for a human's
 * approval is not in it), the calls in flight, the approvals waiting, tool
 * worker restarts and efferent copy's backlog. Only names and counts are
 * recorded: never an argument or a result.
 *
 * Prometheus names: the OpenTelemetry names with `_` for `.`, `_total` on
 * counters and `_seconds` on durations, as OpenTelemetry's Prometheus
 * compatibility rules make them (`toolhost.tool.call.duration`, unit `s`,
 * is `toolhost_tool_call_duration_seconds`).
 *
 * @module
 */

import { PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  MeterProvider,
  type MetricData,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import type { CallObserver, CallOutcome, CallRecord } from "../../tools/calls.ts";
import type { HostStatus } from "../../tools/observe/observation.ts";

/** The duration histogram's bucket bounds, in seconds: a 5 ms read to a 10-minute build. */
export const DURATION_BUCKETS_S: readonly number[] = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
  120,
  300,
  600,
];

/**
 * The most values a label takes: past them a new tool or client name is
 * counted as `other` (a client names itself; a bogus tool name is the
 * client's choice too, and every value is a series kept until the host stops).
 */
export const MAX_LABEL_VALUES = 200;

/** The content type of Prometheus's text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** How a call ended, as the `outcome` label says it. */
export type CallOutcomeLabel = "ok" | "error" | "refused";

/** A reader that exports nothing by itself: the Hook API collects from it when scraped. */
class PulledReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** The host's metrics: an observer of every call, and gauges read from the host's status. */
export class HostMetrics implements CallObserver {
  #provider: MeterProvider;
  #reader = new PulledReader();
  #calls;
  #duration;
  #inFlight = new Set<CallRecord>();
  #waiting = new Set<CallRecord>();
  #values = new Map<string, Set<string>>();
  /** What it keeps is by call: a call need not wait for the others' telling. */
  readonly unordered = true;

  /**
   * The host's metrics, none observed yet.
   *
   * @param status The host's status now (worker restarts, efferent copy's backlog).
   * @param version The host's version (the resource's `service.version`).
   * @param readers Readers besides the one `GET /metrics` collects from (OTLP export).
   */
  constructor(status: () => HostStatus, version: string, readers: readonly MetricReader[] = []) {
    this.#provider = new MeterProvider({
      resource: hostResource(version),
      readers: [this.#reader, ...readers],
    });
    const meter = this.#provider.getMeter("toolhost", version);
    this.#calls = meter.createCounter("toolhost.tool.calls", {
      description: "Tool calls, by tool, outcome (ok, error, refused by a human) and client",
      unit: "{call}",
    });
    this.#duration = meter.createHistogram("toolhost.tool.call.duration", {
      description: "Tool call duration, without the time it waited for a human's approval",
      unit: "s",
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] },
    });
    meter.createObservableGauge("toolhost.tool.calls.in_flight", {
      description: "Tool calls started and not yet answered (those waiting for approval too)",
      unit: "{call}",
    }).addCallback((result) => result.observe(this.#inFlight.size));
    meter.createObservableGauge("toolhost.approvals.waiting", {
      description: "Tool calls waiting for a human's approval",
      unit: "{call}",
    }).addCallback((result) => result.observe(this.#waiting.size));
    meter.createObservableCounter("toolhost.worker.restarts", {
      description: "Tool workers started in place of one that crashed, hung or would not stop",
      unit: "{restart}",
    }).addCallback((result) => result.observe(status().workers.restarts));
    meter.createObservableGauge("toolhost.efferent_copy.backlog", {
      description: "Calls efferent copy holds for its sinks, not yet sent",
      unit: "{call}",
    }).addCallback((result) => {
      const efferent = status().efferent_copy;
      result.observe(efferent.state === "off" ? 0 : efferent.held);
    });
  }

  /** A call starts. */
  before(call: CallRecord): void {
    this.#inFlight.add(call);
  }

  /** A call begins or ends its wait for a human's approval. */
  waiting(call: CallRecord, waiting: boolean): void {
    if (waiting) this.#waiting.add(call);
    else this.#waiting.delete(call);
  }

  /** A call ended: counted, and its duration recorded unless a human refused it (it never ran). */
  after(call: CallRecord, outcome: CallOutcome): void {
    this.#inFlight.delete(call);
    this.#waiting.delete(call);
    const label = outcomeLabel(outcome);
    const attributes = {
      tool: this.#bounded("tool", call.tool),
      outcome: label,
      client: this.#bounded("client", call.client),
    };
    this.#calls.add(1, attributes);
    if (label !== "refused") this.#duration.record(outcome.durationMs / 1000, attributes);
  }

  /**
   * The metrics now, in Prometheus's text exposition format.
   *
   * @returns The text ({@linkcode PROMETHEUS_CONTENT_TYPE}).
   */
  async prometheus(): Promise<string> {
    const { resourceMetrics } = await this.#reader.collect();
    // No otel_scope_* labels on every series; the resource is kept (target_info).
    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true);
    return serializer.serialize(withUnitSuffixes(resourceMetrics));
  }

  /** Stop recording (the gauges are no longer read). */
  async close(): Promise<void> {
    await this.#provider.shutdown();
  }

  /** A label's value, or `other` once the label has taken {@linkcode MAX_LABEL_VALUES} others. */
  #bounded(label: string, value: string): string {
    let seen = this.#values.get(label);
    if (!seen) this.#values.set(label, seen = new Set());
    if (seen.has(value)) return value;
    if (seen.size >= MAX_LABEL_VALUES) return "other";
    seen.add(value);
    return value;
  }
}

/**
 * What the host's telemetry describes: toolhost, its version.
 *
 * @param version The host's version.
 * @returns The resource.
 */
export function hostResource(version: string): Resource {
  return resourceFromAttributes({ "service.name": "toolhost", "service.version": version });
}

/** `refused` when a human denied the call (or let it time out), `error` for an error result. */
export function outcomeLabel(outcome: CallOutcome): CallOutcomeLabel {
  const decision = outcome.approval?.decision;
  if (decision !== undefined && decision !== "approved" && decision !== "asked") return "refused";
  return outcome.result.isError ? "error" : "ok";
}

/**
 * Durations in seconds named with `_seconds`, as Prometheus's naming asks (the serializer does
 * not); and no unit line (`# UNIT` is OpenMetrics', and `{call}` is no Prometheus unit).
 */
function withUnitSuffixes(resource: ResourceMetrics): ResourceMetrics {
  const rename = (metric: MetricData): MetricData => {
    const { name, unit } = metric.descriptor;
    const seconds = unit === "s" && !name.endsWith("_seconds");
    const descriptor = { ...metric.descriptor, name: seconds ? `${name}_seconds` : name, unit: "" };
    return { ...metric, descriptor };
  };
  return {
    ...resource,
    scopeMetrics: resource.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map(rename),
    })),
  };
}
