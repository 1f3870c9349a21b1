/**
 * The conformance suite's `test_*` tools: what each answers, and how the
 * ones that talk back to the client (logging, progress, sampling,
 * elicitation, a resumed stream) do it. Served by `conformance_fixtures.ts`.
 *
 * @module
 */

import {
  type CallToolResult,
  type ContentBlock,
  ProtocolError,
  ProtocolErrorCode,
  type RequestOptions,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import {
  DEFAULTS_FORM,
  ENUMS_FORM,
  type Form,
  JSON_SCHEMA_2020_12,
  PNG,
  USER_FORM,
  WAV,
} from "./_conformance_data.ts";

/** The pause between the steps of the logging and progress tools. */
const STEP_MS = 50;
/** How long `test_reconnection` waits after closing its stream before it answers. */
const RECONNECT_MS = 200;
/** The longest text a fixture echoes back. */
const ECHO_LIMIT = 2_000;

/** A tool call's arguments. */
export type Args = Record<string, unknown>;
/** A fixture tool's behaviour. */
export type Run = (args: Args, ctx: ServerContext) => Promise<CallToolResult>;

const EMBEDDED = {
  uri: "test://embedded-resource",
  mimeType: "text/plain",
  text: "This is an embedded resource content.",
};

const JSON_TEXT = {
  uri: "test://mixed-content-resource",
  mimeType: "application/json",
  text: JSON.stringify({ test: "data", value: 123 }),
};

function blocks(...content: ContentBlock[]): CallToolResult {
  return { content };
}

/** The tools that always give the same answer: name, description, answer. */
const CANNED: ReadonlyArray<readonly [string, string, CallToolResult]> = [
  [
    "test_simple_text",
    "Return one text block.",
    blocks({ type: "text", text: "This is a simple text response for testing." }),
  ],
  [
    "test_image_content",
    "Return a PNG image.",
    blocks({ type: "image", data: PNG, mimeType: "image/png" }),
  ],
  [
    "test_audio_content",
    "Return a WAV sound.",
    blocks({ type: "audio", data: WAV, mimeType: "audio/wav" }),
  ],
  [
    "test_embedded_resource",
    "Return an embedded text resource.",
    blocks({ type: "resource", resource: EMBEDDED }),
  ],
  [
    "test_multiple_content_types",
    "Return text, an image and a resource.",
    blocks(
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "resource", resource: JSON_TEXT },
    ),
  ],
  [
    "test_error_handling",
    "Always answer with an error result.",
    {
      ...blocks({ type: "text", text: "This tool intentionally returns an error for testing" }),
      isError: true,
    },
  ],
];

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: value }], ...(isError ? { isError } : {}) };
}

function answer(result: CallToolResult): Run {
  return () => Promise.resolve(result);
}

function echo(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  return json.length > ECHO_LIMIT ? `${json.slice(0, ECHO_LIMIT)}… (cut)` : json;
}

function stringArg(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== "string") {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Argument "${name}" must be a string`);
  }
  return value;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function tool(name: string, description: string, input?: [string, string]): Tool {
  const inputSchema: Tool["inputSchema"] = input
    ? {
      type: "object",
      properties: { [input[0]]: { type: "string", description: input[1] } },
      required: [input[0]],
    }
    : { type: "object", properties: {} };
  return { name, description, inputSchema };
}

async function withLogging(_args: Args, ctx: ServerContext): Promise<CallToolResult> {
  const steps = ["Tool execution started", "Tool processing data", "Tool execution completed"];
  for (const [i, step] of steps.entries()) {
    if (i > 0) await pause(STEP_MS, ctx.mcpReq.signal);
    await ctx.mcpReq.log("info", step, "conformance");
  }
  return text(`Tool with logging executed: ${steps.length} log messages sent`);
}

async function withProgress(_args: Args, ctx: ServerContext): Promise<CallToolResult> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  for (const progress of [0, 50, 100]) {
    if (progress > 0) await pause(STEP_MS, ctx.mcpReq.signal);
    if (progressToken === undefined) continue;
    await ctx.mcpReq.notify({
      method: "notifications/progress",
      params: { progressToken, progress, total: 100, message: `Step ${progress} of 100` },
    });
  }
  const to = progressToken === undefined ? " to nobody (no progress token)" : "";
  return text(`Progress 0, 50 and 100 of 100 reported${to}`);
}

/**
 * Options that send a request to the client on the stream of the call it
 * serves: without `relatedRequestId` the SDK sends it on the standalone GET
 * stream, and drops it when the client has not opened that stream yet.
 */
function related(ctx: ServerContext): RequestOptions {
  return { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal };
}

async function sampling(args: Args, ctx: ServerContext): Promise<CallToolResult> {
  const prompt = stringArg(args, "prompt");
  try {
    const result = await ctx.mcpReq.requestSampling({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100,
    }, related(ctx));
    const blocks = Array.isArray(result.content) ? result.content : [result.content];
    const reply = blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`);
    return text(`LLM response: ${reply.join("\n").slice(0, ECHO_LIMIT)}`);
  } catch (error) {
    // Reported to the client as the tool's error result.
    return text(`Cannot sample through the client: ${(error as Error).message}`, true);
  }
}

function elicitation(message: (args: Args) => string, requestedSchema: Form, label: string): Run {
  return async (args, ctx) => {
    const params = { message: message(args), requestedSchema };
    try {
      const result = await ctx.mcpReq.elicitInput(params, related(ctx));
      return text(`${label}: action=${result.action}, content=${echo(result.content ?? {})}`);
    } catch (error) {
      // Reported to the client as the tool's error result.
      return text(`Cannot ask the user through the client: ${(error as Error).message}`, true);
    }
  };
}

async function reconnection(_args: Args, ctx: ServerContext): Promise<CallToolResult> {
  const closeSSE = ctx.http?.closeSSE;
  if (!closeSSE) {
    return text("Reconnection test answered on an open stream: this request cannot be resumed");
  }
  closeSSE();
  await pause(RECONNECT_MS, ctx.mcpReq.signal);
  return text("Reconnection test completed: this result was sent after the stream was closed");
}

/** The tools and what they do, in the order they are listed. */
export const FIXTURE_TOOLS: ReadonlyArray<readonly [Tool, Run]> = [
  ...CANNED.map(([name, description, result]) =>
    [tool(name, description), answer(result)] as const
  ),
  [tool("test_tool_with_logging", "Send three info log messages, then answer."), withLogging],
  [
    tool("test_tool_with_progress", "Report progress 0, 50, 100 of 100, then answer."),
    withProgress,
  ],
  [
    tool("test_sampling", "Ask the client's model to answer a prompt.", [
      "prompt",
      "For the model",
    ]),
    sampling,
  ],
  [
    tool("test_elicitation", "Ask the user for a name and an e-mail address.", [
      "message",
      "For the user",
    ]),
    elicitation((args) => stringArg(args, "message"), USER_FORM, "User response"),
  ],
  [
    tool(
      "test_elicitation_sep1034_defaults",
      "Ask the user to fill a form whose fields have defaults.",
    ),
    elicitation(() => "Please review these fields", DEFAULTS_FORM, "Elicitation completed"),
  ],
  [
    tool("test_elicitation_sep1330_enums", "Ask the user to choose in each kind of enum field."),
    elicitation(() => "Please choose in each field", ENUMS_FORM, "Elicitation completed"),
  ],
  [
    {
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: JSON_SCHEMA_2020_12,
    },
    (args) => Promise.resolve(text(`Received: ${echo(args)}`)),
  ],
  [
    tool(
      "test_reconnection",
      "Close the response stream mid-call, then answer after the client resumes.",
    ),
    reconnection,
  ],
];
