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
   * Register tools, leaving out those the options switch off.
   *
   * @param tools The tools.
   * @param options Which are switched off.
   * @throws {TypeError} When two tools share a name, or a disabled name is unknown.
   */
  constructor(tools: readonly Tool[], options: RegistryOptions = {}) {
    const names = new Set(tools.map((tool) => tool.name));
    for (const name of [...(options.disabled ?? []), ...(options.enabled ?? [])]) {
      if (!names.has(name)) throw new TypeError(`Cannot configure tool "${name}": no such tool`);
    }
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) {
        throw new TypeError(`Cannot register tool "${tool.name}" twice`);
      }
      if (options.disabled?.includes(tool.name)) continue;
      if (options.enabled && !options.enabled.includes(tool.name)) continue;
      this.#tools.set(tool.name, tool);
      this.#descriptors.push(describe(tool));
    }
  }

  /** The enabled tools, as clients see them. */
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
   * Validate the arguments and run the tool. Invalid arguments, `ToolError`s
   * and unexpected exceptions all become `isError` results; only an unknown
   * tool throws.
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

function describe(tool: Tool): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    name: tool.name,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, "input"),
    annotations: { ...tool.annotations },
  };
  if (tool.output) descriptor.outputSchema = jsonSchema(tool.output, "output");
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

function describeIssues(error: { readonly issues: readonly SchemaIssue[] }): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the arguments";
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}
