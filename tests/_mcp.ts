/**
 * The launch users run, as a test sees it: the command `toolhost mcp-config`
 * prints, started the way an MCP client starts it (from `/`, with a minimal
 * environment plus what the client's `env` adds), and a real SDK client
 * over stdio. Security, black-box, search and sink tests go through here.
 * The entry is `bin/toolhost start --root …`: it finds Deno on the PATH it
 * is given, as it does for a user (`tests/host/cli/toolhost_bin_test.ts`
 * covers a PATH without Deno).
 *
 * @module
 */

import {
  type CallToolResult,
  Client,
  ProtocolError,
  type Tool,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fileURLToPath as fromFileUrl } from "node:url";
import type { ToolResult } from "../tools/tool.ts";

/** What the user gives `mcp-config`, and what the client's `env` adds. */
export interface LaunchOptions {
  /** `--config FILE`. */
  config?: string;
  /** `--ripgrep auto|off|PATH`. */
  ripgrep?: string;
  /** `--unprotect GLOB` flags. */
  unprotect?: readonly string[];
  /** Variables the client's `env` sets for the server (beside PATH and HOME). */
  env?: Record<string, string>;
}

/** A connected client; `await using` closes it and the server. */
export interface StdioSession extends AsyncDisposable {
  /** The SDK client. */
  readonly client: Client;
  /** What the server wrote to stderr. */
  stderr(): string;
  /** The server's process id (a bench reads its memory). */
  readonly pid: number | undefined;
  /**
   * Call a tool.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @returns The result.
   */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
}

/**
 * A tool's result as the client got it: toolhost's structured content is an object, and a
 * result says `isError` only to say true or false (the SDK's type allows anything of both).
 */
export type CallResult = CallToolResult & {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * The `.mcp.json` entry for some roots, from the real CLI: its `main`, run in
 * this process as `toolhost mcp-config` runs it (the same arguments, this
 * process's environment, which a child would inherit). A child process
 * would print the same entry at the cost of a Deno start per host;
 * `tests/host/cli/cli_test.ts` runs the command itself.
 *
 * @param roots The roots.
 * @param options What else the user gives `mcp-config`.
 * @returns The command and arguments.
 */
export async function mcpConfigFor(
  roots: readonly string[],
  options: LaunchOptions = {},
): Promise<{ command: string; args: string[] }> {
  const args = [
    "mcp-config",
    ...roots.flatMap((root) => ["--root", root]),
    ...(options.config ? ["--config", options.config] : []),
    ...(options.ripgrep ? [`--ripgrep=${options.ripgrep}`] : []),
    ...(options.unprotect ?? []).map((glob) => `--unprotect=${glob}`),
  ];
  return (await mcpConfigEntry(args)) as { command: string; args: string[] };
}

/** Run `toolhost ARGS…` (an `mcp-config`) in this process and parse the entry it prints. */
async function mcpConfigEntry(args: string[]): Promise<Record<string, unknown>> {
  const { main } = await import("../host/cli/main.ts");
  const printed: string[] = [];
  const code = await main(args, {
    out: (line) => printed.push(line),
    err: (line) => void Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`)),
  });
  if (code !== 0) throw new Error(`toolhost ${args.join(" ")} failed (exit ${code})`);
  return JSON.parse(printed.join("\n")).mcpServers.toolhost;
}

/** The environment an MCP client gives a server: PATH and HOME, and its `env`. */
export function clientEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    ...extra,
  };
}

/**
 * Start the server exactly as an MCP client configured with `mcp-config`
 * would (from `/`, with a minimal environment), and connect.
 *
 * @param roots The roots.
 * @param options What else the user gives `mcp-config`, and the client's `env`.
 * @returns The session.
 */
export async function connectStdio(
  roots: readonly string[],
  options: LaunchOptions = {},
): Promise<StdioSession> {
  const { command, args } = await mcpConfigFor(roots, options);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: "/",
    stderr: "pipe",
    env: clientEnv(options.env),
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "toolhost-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    pid: transport.pid ?? undefined,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallResult>,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/**
 * The text of a result's content blocks, joined.
 *
 * @param result A tool result from the client.
 * @returns The text.
 */
export function resultText(result: Pick<CallToolResult, "content"> | ToolResult): string {
  return (result.content as Array<{ type: string; text?: string }>)
    .map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/**
 * What a failed request says: a protocol error's code and message as `MCP error <code>:
 * <message>` (as the v1 SDK's `McpError` read them; the v2 SDK's `ProtocolError` keeps the code
 * apart), anything else's message.
 *
 * @param error What the request threw.
 * @returns The text.
 */
export function errorText(error: unknown): string {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Wait until the server has said something on stderr (start-up, discovery).
 *
 * @param session The session.
 * @param pattern What to wait for.
 * @param timeoutMs The longest wait.
 * @returns The stderr text so far.
 * @throws {Error} When it was not said in time.
 */
export async function waitForStderr(
  session: Pick<StdioSession, "stderr">,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(session.stderr())) {
    if (Date.now() > until) {
      throw new Error(
        `The server did not say ${pattern} within ${timeoutMs} ms: ${session.stderr()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return session.stderr();
}

/** Options for {@linkcode launchHost}. */
export interface LaunchHostOptions extends LaunchOptions {
  /** The roots. */
  roots: readonly string[];
  /**
   * The toolhost.json to write at the first root before starting (the launcher reads it). It is
   * project content: what loosens the host is ignored until the user trusts the file.
   */
  file?: Record<string, unknown>;
  /**
   * The user's own toolhost.json: written to a directory outside the roots and given with
   * `--config`, so that it applies in full (servers, loosening keys); removed with the host.
   */
  userFile?: Record<string, unknown>;
}

/** A served host seen through a real MCP client: the calls a test makes, with the replies' shape. */
export interface LaunchedHost extends AsyncDisposable {
  /** The session underneath. */
  readonly session: StdioSession;
  /** The tools listed at start, with their annotations. */
  list(): Array<{ name: string; annotations?: Tool["annotations"] }>;
  /**
   * Call a tool.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @returns The result as the client got it.
   */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

/**
 * Start the launch users run for some roots (optionally with a toolhost.json
 * at the first root) and give it the shape of an in-process host's calls.
 *
 * @param options The roots, the config file to write, the launch options.
 * @returns The host; `await using` closes it.
 */
export async function launchHost(options: LaunchHostOptions): Promise<LaunchedHost> {
  if (options.file) {
    await Deno.writeTextFile(`${options.roots[0]}/toolhost.json`, JSON.stringify(options.file));
  }
  let own: string | undefined;
  if (options.userFile) {
    own = await Deno.makeTempDir({ prefix: "toolhost-user-config-" });
    await Deno.writeTextFile(`${own}/toolhost.json`, JSON.stringify(options.userFile));
  }
  const launch = own ? { ...options, config: `${own}/toolhost.json` } : options;
  const session = await connectStdio(options.roots, launch);
  const listed: Tool[] = (await session.client.listTools()).tools;
  const tools = listed.map((tool) => ({
    name: tool.name,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  }));
  return {
    session,
    list: () => tools,
    call: async (name, args = {}) => (await session.call(name, args)) as ToolResult,
    async [Symbol.asyncDispose]() {
      await session[Symbol.asyncDispose]();
      if (own) await Deno.remove(own, { recursive: true });
    },
  };
}

/** Options for {@linkcode launchHttp}. */
export interface HttpLaunchOptions {
  /** `--conformance-fixtures`: the suite's test tools, no token. */
  conformanceFixtures?: boolean;
  /** The toolhost.json to write at the first root before starting. */
  file?: Record<string, unknown>;
  /** `--config FILE` (a config file outside the roots). */
  config?: string;
  /** Variables the environment adds (beside PATH and HOME). */
  env?: Record<string, string>;
  /**
   * A test-only fault (a module of `tests/_faults/`) loaded into the served process before it
   * starts: the scoped command line the launcher would run is run as it is, with `--preload`.
   */
  fault?: URL;
}

/** A host serving over Streamable HTTP, started the way a user starts it. */
export interface HttpHost extends AsyncDisposable {
  /** The endpoint (`http://127.0.0.1:<port>/mcp`). */
  readonly url: string;
  /** The bearer token `mcp-config --http` printed, or undefined (the conformance fixtures). */
  readonly token: string | undefined;
  /** The headers a client sends (the token). */
  readonly headers: Record<string, string>;
  /** What the server wrote to stderr. */
  stderr(): string;
  /** The server process. */
  readonly process: Deno.ChildProcess;
  /**
   * Send SIGTERM and wait for the process to end.
   *
   * @returns Its exit status.
   */
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Start `toolhost start --http 127.0.0.1:0 --root …` from `/` with a client's
 * minimal environment (the command `mcp-config --http` says to run, on a
 * port the system picks), wait for its start-up line, and take the token
 * from `mcp-config --http` (the real CLI).
 *
 * @param roots The roots.
 * @param options Fixtures, a config file, environment.
 * @returns The running server; `await using` stops it.
 */
export async function launchHttp(
  roots: readonly string[],
  options: HttpLaunchOptions = {},
): Promise<HttpHost> {
  if (options.file) {
    await Deno.writeTextFile(`${roots[0]}/toolhost.json`, JSON.stringify(options.file));
  }
  const { command, args } = await mcpConfigFor(
    roots,
    options.config === undefined ? {} : { config: options.config },
  );
  const http = [
    "--http=127.0.0.1:0",
    ...(options.conformanceFixtures ? ["--conformance-fixtures"] : []),
  ];
  const line = options.fault
    ? await faultedLine([...args.slice(1), ...http], options.fault, options.env)
    : { command, args: [...args, ...http], env: clientEnv(options.env) };
  const child = new Deno.Command(line.command, {
    args: line.args,
    cwd: "/",
    env: line.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = collect(child.stderr);
  const url = await waitForLine(stderr, /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/, child);
  const token = options.conformanceFixtures ? undefined : await httpTokenFor(roots, url);
  let status: Promise<Deno.CommandStatus> | undefined;
  const stop = () => {
    if (status) return status;
    try {
      child.kill("SIGTERM");
    } catch {
      // It has already exited: its status says how.
    }
    return status = child.status;
  };
  return {
    url,
    token,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    stderr: () => stderr.text,
    process: child,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/**
 * The scoped command line for `toolhost start ARGS…`, computed as the launcher computes it (in a
 * process of its own, with the client's environment), with a fault module preloaded before the
 * served entry.
 */
async function faultedLine(
  startArgs: string[],
  fault: URL,
  env: Record<string, string> = {},
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const script = fromFileUrl(new URL("./_faults/scoped_line.ts", import.meta.url));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", script, ...startArgs],
    env: clientEnv(env),
    clearEnv: true,
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error("The scoped command line could not be computed");
  const line = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const { ENTRY } = await import("../host/cli/scoped_command.ts");
  const entry = line.args.indexOf(fromFileUrl(ENTRY));
  const preload = `--preload=${fromFileUrl(fault)}`;
  const args = [...line.args.slice(0, entry), preload, ...line.args.slice(entry)];
  return { command: line.command, args, env: { ...clientEnv(env), ...line.env } };
}

/** The token in the entry `mcp-config --http HOST:PORT` prints. */
async function httpTokenFor(roots: readonly string[], url: string): Promise<string> {
  const { host } = new URL(url);
  const entry = await mcpConfigEntry([
    "mcp-config",
    ...roots.flatMap((r) => ["--root", r]),
    `--http=${host}`,
  ]) as { url: string; headers: { Authorization: string } };
  if (entry.url !== url) {
    throw new Error(`mcp-config --http printed ${entry.url}, the server is at ${url}`);
  }
  return entry.headers.Authorization.replace(/^Bearer /, "");
}

/** A stream's text as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): { text: string } {
  const sink = { text: "" };
  void stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (sink.text += chunk) }),
  ).catch(() => {
    // The process ended: what it wrote is kept.
  });
  return sink;
}

/** Wait (60 s at most) until a pattern appears in the text; its first group. */
async function waitForLine(
  sink: { text: string },
  pattern: RegExp,
  child: Deno.ChildProcess,
): Promise<string> {
  let exited = false;
  void child.status.then(() => (exited = true));
  const until = Date.now() + 60_000;
  for (;;) {
    const match = pattern.exec(sink.text);
    if (match) return match[1]!;
    if (exited || Date.now() > until) {
      throw new Error(`The HTTP server did not start: ${sink.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
