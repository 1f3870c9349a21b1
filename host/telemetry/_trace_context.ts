/**
 * The client's W3C trace context, as a request's `_meta` carries it, as
 * the parent of the host's span.
 *
 * @module
 */

import { type Context, ROOT_CONTEXT } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { TraceContext } from "../../tools/calls.ts";

const PROPAGATOR = new W3CTraceContextPropagator();
const GETTER = {
  get: (carrier: unknown, key: string) => (carrier as Record<string, string | undefined>)[key],
  keys: (carrier: unknown) => Object.keys(carrier as object),
};

/**
 * The context a span starts in: the client's trace when it sent one (a malformed one is ignored).
 *
 * @param trace The request's `traceparent` and `tracestate`, if any.
 * @returns The context.
 */
export function parentContext(trace: TraceContext | undefined): Context {
  return trace ? PROPAGATOR.extract(ROOT_CONTEXT, trace, GETTER) : ROOT_CONTEXT;
}
