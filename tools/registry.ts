/**
 * The registry: lists tools as MCP sees them and runs a call with the same
 * error semantics everywhere.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../security/errors.ts";
import type {
  ObjectSchema,
  SchemaIssue,
  Tool,
  ToolAnnotations,
  ToolContext,
  ToolResult,
} from "./tool.ts";
import { boundReply } from "./reply_bound.ts";
import { unknownArguments } from "./_arguments.ts";
import type { ToolIcon } from "./icons.ts";

/** A tool as a client sees it. */
export interface ToolDescriptor {
  /** The tool's name. */
  name: string;
  /** Its description for the model. */
  description: string;
  /** JSON Schema (draft 7) of its input. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of its `structuredContent`, when it has one. */
  outputSchema?: Record<string, unknown>;
  /** Its hints. */
  annotations: ToolAnnotations;
  /** What clients draw beside it: its family's icon (`tools/icons.ts`). */
  icons?: ToolIcon[];
}

/** Thrown for a tool name the registry does not have: a protocol error, not a result. */
export class UnknownToolError extends Error {
  /** @param name The unknown name. */
  constructor(name: string) {
    super(`Unknown tool "${name}"`);
    this.name = "UnknownToolError";
  }
}

/** Options for {@linkcode Registry}. */
export interface RegistryOptions {
  /** Tool names that are switched off (they are neither listed nor callable). */
  disabled?: readonly string[];
  /** When given, only these tools are on. */
  enabled?: readonly string[];
  /** List each tool's output schema too (default false: `structuredContent` is returned all the same). */
  outputSchemas?: boolean;
}

/**
 * The set of local tools, with their descriptors.
 *
 * @example
 * ```ts
 * const registry = new Registry(TOOLS, { disabled: ["write_file"] });
 * const result = await registry.call("read_file", { path: "README.md" }, ctx);
 * ```
 */
export class Registry {
  #tools = new Map<string, Tool>();
  #descriptors: ToolDescriptor[] = [];

  /**
   * Register tools, leaving out those the options switch off. A name the
   * options give that is not among `tools` is left alone: it may be another
   * process's tool (the host checks every name against all of its tools).
   * Internal tools are always on and never listed.
   *
   * @param tools The tools.
   * @param options Which are switched off, and whether output schemas are listed.
   * @throws {TypeError} When two tools share a name.
   */
  constructor(tools: readonly Tool[], options: RegistryOptions = {}) {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) {
        throw new TypeError(`Cannot register tool "${tool.name}" twice`);
      }
      if (!tool.internal && !switchedOn(tool.name, options)) continue;
      this.#tools.set(tool.name, tool);
      if (!tool.internal) this.#descriptors.push(describe(tool, options.outputSchemas === true));
    }
  }

  /** The enabled tools, as clients see them (internal tools are not listed). */
  list(): ToolDescriptor[] {
    return this.#descriptors;
  }

  /**
   * Whether a tool takes a `force` argument: such editors refuse to overwrite
   * a file that changed since the agent last read it, unless forced.
   *
   * @param name The tool's name.
   */
  acceptsForce(name: string): boolean {
    return this.#tools.get(name)?.input.shape.force !== undefined;
  }

  /**
   * Whether a tool may write (it is not `readOnlyHint`): every path it
   * touches is then held to the protected paths.
   *
   * @param name The tool's name.
   * @returns True unless the tool is read-only.
   */
  writes(name: string): boolean {
    return this.#tools.get(name)?.annotations.readOnlyHint !== true;
  }

  /**
   * Whether a tool is enabled.
   *
   * @param name The tool's name.
   */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * Validate the arguments and run the tool. Invalid arguments (a key the
   * schema does not have among them), `ToolError`s and unexpected exceptions
   * all become `isError` results; only an unknown tool throws.
   *
   * @param name The tool's name.
   * @param args The raw arguments.
   * @param ctx The context.
   * @returns The result, bounded by the policy (serialized size).
   * @throws {UnknownToolError} When no enabled tool has that name.
   */
  async call(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new UnknownToolError(name);
    const unknown = unknownArguments(name, args, Object.keys(tool.input.shape));
    if (unknown !== undefined) return errorResult("invalid_argument", unknown);
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      return errorResult(
        "invalid_argument",
        `Cannot call ${name}: ${describeIssues(parsed.error)}`,
      );
    }
    try {
      const result = await tool.run(parsed.data, ctx);
      return boundReply(result, ctx.policy.limits.maxOutputChars);
    } catch (error) {
      return failure(error, name, ctx);
    }
  }
}

/**
 * An `isError` result with the text `<code>: <message>`.
 *
 * @param code The stable code.
 * @param message The message.
 * @returns The result.
 */
export function errorResult(code: string, message: string): ToolResult {
  return { content: [{ type: "text", text: `${code}: ${message}` }], isError: true };
}

function failure(error: unknown, name: string, ctx: ToolContext): ToolResult {
  if (error instanceof ToolError) return errorResult(error.code, error.message);
  if (ctx.signal.aborted) {
    const reason = ctx.signal.reason;
    if (reason instanceof ToolError) return errorResult(reason.code, reason.message);
    return errorResult("cancelled", `${name} was cancelled`);
  }
  ctx.logger.error(`${name} failed unexpectedly`, error);
  return errorResult(
    "internal_error",
    `${name} failed unexpectedly; the details are in the host's log`,
  );
}

/** Whether the options leave a tool on. */
function switchedOn(name: string, options: RegistryOptions): boolean {
  if (options.disabled?.includes(name)) return false;
  return options.enabled === undefined || options.enabled.includes(name);
}

/**
 * A tool as `tools/list` carries it, lean: every model turn pays for it.
 * The input schema without what zod adds that tells a model nothing, and
 * closed (`additionalProperties: false`: {@linkcode Registry.call} refuses
 * any other key), the output schema only when asked for, the hints that
 * differ from MCP's defaults (and the title).
 */
function describe(tool: Tool, outputSchemas: boolean): ToolDescriptor {
  const input = leanSchema(jsonSchema(tool.input, "input")) as Record<string, unknown>;
  const descriptor: ToolDescriptor = {
    name: tool.name,
    description: tool.description,
    inputSchema: { ...input, additionalProperties: false },
    annotations: leanAnnotations(tool.annotations),
  };
  if (tool.output && outputSchemas) {
    descriptor.outputSchema = leanSchema(jsonSchema(tool.output, "output")) as Record<
      string,
      unknown
    >;
  }
  return descriptor;
}

function jsonSchema(schema: ObjectSchema, io: "input" | "output"): Record<string, unknown> {
  // Every tool's schemas are zod's: `ObjectSchema` only keeps zod's types out of the public API.
  const zod = schema as unknown as z.ZodType;
  const json = z.toJSONSchema(zod, { target: "draft-7", io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}

/**
 * A JSON Schema without zod's noise: the bounds of `.int()` (the safe
 * integers), `minLength: 1`, the defaults `false`, `""` and `0` (what
 * omitting a flag, a string or a count means anyway), the lower bounds 0
 * and 1 (of counts, offsets and 1-based line numbers), and length caps of
 * 256 or more and upper bounds of 1,000 or more (a guard against abuse, not
 * something a model writes near). The input is still checked against the
 * full schema, whose refusal names the bound.
 *
 * @param schema A JSON Schema, or a part of one.
 * @returns The same schema, lean.
 */
function leanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(leanSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const lean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "minimum" && (value === 0 || value === 1)) continue;
    if (key === "maximum" && typeof value === "number" && value >= 1000) continue;
    if (key === "minLength" && value === 1) continue;
    if (key === "default" && (value === false || value === "" || value === 0)) continue;
    if (key === "maxLength" && typeof value === "number" && value >= 256) continue;
    // A property's own schema is a value under `properties`, never a keyword to drop.
    lean[key] = key === "properties" ? leanProperties(value) : leanSchema(value);
  }
  return lean;
}

function leanProperties(properties: unknown): unknown {
  if (properties === null || typeof properties !== "object") return properties;
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, leanSchema(schema)]),
  );
}

/**
 * The hints that differ from MCP's defaults, and the title. A read-only
 * tool's `destructiveHint` and `idempotentHint` mean nothing (MCP), so they
 * are left out; a tool that writes always says `destructiveHint`.
 *
 * @param hints The tool's annotations.
 * @returns The ones worth listing.
 */
function leanAnnotations(hints: ToolAnnotations): ToolAnnotations {
  const lean: ToolAnnotations = {};
  if (hints.title !== undefined) lean.title = hints.title;
  if (hints.readOnlyHint === true) lean.readOnlyHint = true;
  else {
    lean.destructiveHint = hints.destructiveHint !== false;
    if (hints.idempotentHint === true) lean.idempotentHint = true;
  }
  // MCP's default is true; a tool that says so (the web tools) says it out loud.
  if (hints.openWorldHint !== undefined) lean.openWorldHint = hints.openWorldHint;
  return lean;
}

function describeIssues(error: { readonly issues: readonly SchemaIssue[] }): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the arguments";
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}
