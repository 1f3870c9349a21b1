/**
 * The tool contract: a tool is a value made by {@linkcode defineTool}, run
 * with a {@linkcode ToolContext} that carries everything it may use.
 *
 * @module
 */

import type { Policy } from "../security/policy.ts";
import type { Resolver } from "../security/resolver.ts";
import type { SafeFs } from "../security/safe_fs.ts";
import { ToolError } from "../security/errors.ts";
import type { Directive } from "./directives.ts";

export { ToolError };
export type { ErrorCode } from "../security/errors.ts";

/** MCP tool annotations: hints for the client, never trusted for security. */
export interface ToolAnnotations {
  /** A human title. */
  title?: string;
  /** The tool changes nothing. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data. */
  destructiveHint?: boolean;
  /** Calling it twice with the same input has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches outside the project (network, other systems). */
  openWorldHint?: boolean;
}

/** One block of result content, as MCP has it. */
export type Content =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string };

/** What a tool returns. */
export interface ToolResult {
  /** The content blocks the model reads. */
  content: Content[];
  /** The same result as data, matching the tool's output schema. */
  structuredContent?: Record<string, unknown>;
  /** True for an error the model can act on. */
  isError?: boolean;
  /** What the tool asks of the host (anchors, stop, ...); serialized in `_meta` at the MCP boundary. */
  directives?: Directive[];
  /** MCP result metadata (passed through from upstream servers). */
  _meta?: Record<string, unknown>;
}

/** A logger: details go to the host's stderr, never to the model. */
export interface Logger {
  /** Something unexpected that did not fail the call. */
  warn(message: string, detail?: unknown): void;
  /** A failure, with its internals. */
  error(message: string, detail?: unknown): void;
}

/** Everything a tool may use while it runs. */
export interface ToolContext {
  /** The policy in force. */
  readonly policy: Policy;
  /** The path resolver: every path goes through it. */
  readonly resolver: Resolver;
  /** Safe file operations (resolver + anchored I/O + atomic writes). */
  readonly fs: SafeFs;
  /** Aborted when the client cancels the call or it times out. */
  readonly signal: AbortSignal;
  /**
   * Report progress on long work.
   *
   * @param progress Work done so far (increasing).
   * @param total The total, when known.
   * @param message What is being done.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Whether the worker has a message waiting (a cancellation, another call).
   * Long work yields at once when it has ({@linkcode yieldDue}).
   */
  messageWaiting(): boolean;
  /**
   * For work in the background only (a call's context has none): whether a
   * call is in flight, so that work no call waits for lets calls go first.
   */
  readonly callsInFlight?: () => boolean;
  /** Where internals go. */
  readonly logger: Logger;
  /** Absolute paths of the external programs this worker may run (ripgrep, when installed). */
  readonly binaries: { readonly ripgrep?: string };
  /**
   * A value kept for the life of the worker under `key`, made on first use
   * (parsed-tree caches and the like). Never module-level state.
   *
   * @param key A name unique to the tool family.
   * @param make Makes the value.
   */
  shared<T>(key: string, make: () => T): T;
}

/** One problem a schema found with the input. */
export interface SchemaIssue {
  /** Where, as keys from the top. */
  readonly path: readonly PropertyKey[];
  /** What is wrong. */
  readonly message: string;
}

/** What checking input against a schema gives: the parsed data, or the issues. */
export type SchemaCheck =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/**
 * A zod object schema (`z.object({...})`), named by what the tool contract
 * uses of it, so that zod's own types stay out of the public API. Every tool
 * is made with zod's schemas ({@linkcode defineTool}).
 */
export interface ObjectSchema {
  /** The fields' schemas, by name. */
  readonly shape: Readonly<Record<string, unknown>>;
  /**
   * Check input against the schema.
   *
   * @param input The input.
   * @returns The parsed data, or the issues.
   */
  safeParse(input: unknown): SchemaCheck;
}

/** The input a schema gives once checked (zod's `z.infer`). */
export type InputOf<I> = I extends { readonly _zod: { readonly output: infer O } } ? O : unknown;

/** What a tool module declares. */
export interface ToolSpec<I extends ObjectSchema> {
  /** snake_case, unique. */
  name: string;
  /** Written for a model: what it does, when to use it, what it returns. */
  description: string;
  /** The input schema. */
  input: I;
  /** The shape of `structuredContent`, when the result has one. */
  output?: ObjectSchema;
  /** Hints for the client. */
  annotations: ToolAnnotations;
  /** The host calls it itself: never listed to clients, never switched off by config. */
  internal?: boolean;
  /**
   * Do the work.
   *
   * @param input The validated input.
   * @param ctx The context.
   * @returns The result; a string is one text block.
   * @throws {ToolError} For errors the model can act on.
   */
  run(input: InputOf<I>, ctx: ToolContext): Promise<ToolResult | string> | ToolResult | string;
}

/** A tool, with its input type erased so that tools can share a list. */
export interface Tool {
  /** snake_case, unique. */
  readonly name: string;
  /** Written for a model. */
  readonly description: string;
  /** The input schema. */
  readonly input: ObjectSchema;
  /** The shape of `structuredContent`. */
  readonly output: ObjectSchema | undefined;
  /** Hints for the client. */
  readonly annotations: ToolAnnotations;
  /** The host calls it itself: never listed to clients, never switched off by config. */
  readonly internal?: boolean;
  /**
   * Run on input that already passed `input`.
   *
   * @param input The validated input.
   * @param ctx The context.
   * @returns The result.
   */
  run(input: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * Make a tool from its spec.
 *
 * @param spec The tool's name, description, schemas, annotations and `run`.
 * @returns The tool value.
 * @throws {TypeError} When the name is not snake_case.
 * @example
 * ```ts
 * export const echo = defineTool({
 *   name: "echo",
 *   description: "Return the text you give it.",
 *   input: z.object({ text: z.string() }),
 *   annotations: { readOnlyHint: true },
 *   run: ({ text }) => text,
 * });
 * ```
 */
export function defineTool<I extends ObjectSchema>(spec: ToolSpec<I>): Tool {
  if (!/^[a-z][a-z0-9_]*$/.test(spec.name)) {
    throw new TypeError(`Cannot define tool "${spec.name}": names are snake_case`);
  }
  if (spec.annotations.readOnlyHint !== true && spec.annotations.destructiveHint === undefined) {
    throw new TypeError(
      `Cannot define tool "${spec.name}": a tool that writes must say destructiveHint (MCP assumes true)`,
    );
  }
  return Object.freeze({
    name: spec.name,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    // A local tool stays inside the roots: MCP's default for openWorldHint is true.
    annotations: Object.freeze({ openWorldHint: false, ...spec.annotations }),
    internal: spec.internal === true,
    async run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
      const result = await spec.run(input as InputOf<I>, ctx);
      return typeof result === "string" ? text(result) : result;
    },
  });
}

/**
 * A result of one text block.
 *
 * @param value The text.
 * @returns The result.
 */
export function text(value: string): ToolResult {
  return { content: [{ type: "text", text: value }] };
}

/**
 * A result with a text rendering for the model and the same data as
 * `structuredContent`.
 *
 * @param value The text.
 * @param data The data, matching the tool's output schema.
 * @returns The result.
 */
export function structured(value: string, data: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: value }], structuredContent: data };
}

/**
 * How long tool code may run between turns of the worker's event loop, where
 * messages arrive. A turn costs about 2 ms (Deno's shortest timer;
 * `setImmediate` and message channels do not let the worker's messages in),
 * so this is about 4% of a long call. A cancellation does not wait for it:
 * {@linkcode yieldDue} sees the message waiting and yields at once.
 */
export const YIELD_EVERY_MS = 50;

/**
 * Whether long work should yield now ({@linkcode yieldToWorker}): it last did
 * {@linkcode YIELD_EVERY_MS} ago or more, or a message waits for the worker.
 * Cheap enough to ask for every item of work.
 *
 * @param ctx The call's context.
 * @param since When the work last yielded (`performance.now()`).
 * @returns True when it is time to yield.
 */
export function yieldDue(ctx: ToolContext, since: number): boolean {
  return performance.now() - since >= YIELD_EVERY_MS || ctx.messageWaiting();
}

/**
 * Give the worker's event loop a turn (a cancellation, other messages), then
 * go on; long-running tools call it when {@linkcode yieldDue} says so.
 *
 * @param signal The call's signal.
 * @throws The signal's reason when the call was cancelled.
 */
export async function yieldToWorker(signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await new Promise((resolve) => setTimeout(resolve, 0));
  signal.throwIfAborted();
}
