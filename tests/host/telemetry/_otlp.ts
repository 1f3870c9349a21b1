/**
 * An OTLP/HTTP receiver on loopback for the telemetry tests, and readers of
 * the OTLP JSON it receives.
 *
 * @module
 */

/** An attribute as OTLP JSON writes it. */
export interface OtlpAttribute {
  key: string;
  value: {
    stringValue?: string;
    intValue?: number | string;
    doubleValue?: number;
    boolValue?: boolean;
  };
}

/** A span as OTLP JSON writes it (what the tests read of it). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  status: { code: number };
}

/** An OTLP/HTTP receiver on loopback: what was posted, by path. */
export function receiver(): { url: string; bodies: Map<string, string[]>; close(): Promise<void> } {
  const bodies = new Map<string, string[]>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      bodies.set(path, [...(bodies.get(path) ?? []), await request.text()]);
      return Response.json({});
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    bodies,
    close: () => server.shutdown(),
  };
}

/** The spans in some posted bodies. */
export function spansIn(bodies: readonly string[]): OtlpSpan[] {
  return bodies.flatMap((body) =>
    (JSON.parse(body) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
    }).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
  );
}

/** A span's attribute: a string, a number (OTLP JSON may write an integer as a string), a boolean. */
export function attribute(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes.find((each) => each.key === key)?.value;
  if (value?.boolValue !== undefined) return value.boolValue;
  if (value?.doubleValue !== undefined) return value.doubleValue;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
}

/** A span's start and end, in milliseconds since the epoch. */
export function timesOf(span: OtlpSpan): { start: number; end: number } {
  return { start: Number(span.startTimeUnixNano) / 1e6, end: Number(span.endTimeUnixNano) / 1e6 };
}
