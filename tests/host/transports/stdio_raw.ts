/**
 * The served process driven by raw JSON-RPC lines, for what an SDK client
 * hides: closing the server's stdin mid-session and watching the process
 * end. Started exactly as an MCP client starts `mcp-config`'s entry (from
 * `/`, with a client's environment). Used by stdio_shutdown_test.ts and
 * bench/lifecycle_bench.ts.
 *
 * @module
 */

import { clientEnv, mcpConfigFor } from "../../_mcp.ts";

/** The longest any step waits (start-up and the first directory on a slow machine included). */
const WAIT_MS = 120_000;

/** A JSON-RPC message as the server wrote it. */
export type Message = Record<string, unknown>;

/** The served process, driven line by line. */
export interface RawServer {
  /** The process. */
  readonly child: Deno.ChildProcess;
  /** What it wrote on stdout so far, parsed. */
  readonly messages: Message[];
  /** What it wrote on stderr so far. */
  stderr(): string;
  /**
   * Write one message on its stdin.
   *
   * @param message The message.
   */
  send(message: Message): Promise<void>;
  /**
   * Write bytes on its stdin as they are (part of a line, several lines).
   *
   * @param text The text.
   */
  write(text: string): Promise<void>;
  /** Close its stdin, as a client that ends the session does. */
  closeInput(): Promise<void>;
}

/**
 * Start the server as an MCP client configured with `mcp-config` does, stdio piped.
 *
 * @param roots The roots.
 * @param ripgrep `mcp-config`'s `--ripgrep` (`off`: searches run in the tool worker).
 * @returns The running server, not yet initialized.
 */
export async function startRaw(roots: readonly string[], ripgrep: string): Promise<RawServer> {
  const { command, args } = await mcpConfigFor(roots, { ripgrep });
  const child = new Deno.Command(command, {
    args,
    cwd: "/",
    env: clientEnv(),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const messages: Message[] = [];
  let stderr = "";
  void readLines(child.stdout, (line) => messages.push(JSON.parse(line)));
  void readLines(child.stderr, (line) => (stderr += `${line}\n`));
  const writer = child.stdin.getWriter();
  return {
    child,
    messages,
    stderr: () => stderr,
    send: (message) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`)),
    write: (text) => writer.write(new TextEncoder().encode(text)),
    closeInput: () => writer.close(),
  };
}

/** Hand each line of a stream to `take`, until the stream ends. */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  take: (line: string) => void,
): Promise<void> {
  let pending = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (pending + text).split("\n");
    pending = lines.pop()!;
    for (const line of lines) if (line.trim() !== "") take(line);
  }
}

/**
 * Wait until the server wrote a message that matches.
 *
 * @param server The server.
 * @param what What is awaited, for the error.
 * @param matches Whether a message is the one.
 * @throws {Error} When none came within two minutes.
 */
export async function waitFor(
  server: RawServer,
  what: string,
  matches: (message: Message) => boolean,
): Promise<void> {
  for (const until = Date.now() + WAIT_MS; !server.messages.some(matches);) {
    if (Date.now() > until) throw new Error(`No ${what} within ${WAIT_MS} ms: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The first request of an MCP session (id 1), as a client writes it on the server's stdin. */
export const INITIALIZE: Message = Object.freeze({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "toolhost-test", version: "1" },
  },
});

/**
 * Initialize the session, as a client's first messages do.
 *
 * @param server The server.
 */
export async function initialize(server: RawServer): Promise<void> {
  await server.send(INITIALIZE);
  await waitFor(server, "answer to initialize", (message) => message.id === 1);
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

/**
 * A grep that runs long over {@linkcode slowTree}, asking for progress.
 *
 * @param id The request's id (its progress token is `p<id>`).
 * @returns The request.
 */
export function longGrep(id: number): Message {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "grep",
      arguments: { pattern: "zz[0-9]q" },
      _meta: { progressToken: `p${id}` },
    },
  };
}

/**
 * Whether a message is progress of the request with that id.
 *
 * @param id The request's id.
 * @returns The test.
 */
export function progressOf(id: number): (message: Message) => boolean {
  return (message) =>
    message.method === "notifications/progress" &&
    (message.params as Message).progressToken === `p${id}`;
}

/**
 * Cancel a request, as a client does when its user gives up on a call.
 *
 * @param id The request's id.
 * @returns The notification.
 */
export function cancelOf(id: number): Message {
  return {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: "the user pressed Esc" },
  };
}

/**
 * Fill a root with a tree on which every grep is long and mostly busy: each
 * directory's listing checks its names against each of the root's
 * 10,000 `.gitignore` rules in one step that never yields, so a cancelled
 * grep goes on until the step ends; progress is reported between the steps.
 *
 * @param root The root.
 * @param dirs How many directories (each one step).
 * @param files How many files in each (500: about 5 s of a step on an idle core).
 */
export async function slowTree(root: string, dirs = 4, files = 500): Promise<void> {
  const rules = Array.from({ length: 10_000 }, (_, i) => `never_${i}_*.bak`);
  await Deno.writeTextFile(`${root}/.gitignore`, `${rules.join("\n")}\n`);
  for (let d = 0; d < dirs; d++) {
    await Deno.mkdir(`${root}/d${d}`);
    for (let f = 0; f < files; f++) await Deno.writeTextFile(`${root}/d${d}/f${f}.txt`, "hello\n");
  }
}

/**
 * The process's status once it ends, or an error (after killing it) when it
 * outlives a bound.
 *
 * @param child The process.
 * @param ms The bound.
 * @returns Its status.
 * @throws {Error} When it was still running after `ms`.
 */
export async function exitWithin(
  child: Deno.ChildProcess,
  ms: number,
): Promise<Deno.CommandStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  const status = await Promise.race([child.status, late]);
  clearTimeout(timer);
  if (status !== "late") return status;
  child.kill("SIGKILL");
  await child.status;
  throw new Error(`The server was still running ${ms} ms after its stdin closed`);
}

/**
 * The pids of a process's descendants, from /proc.
 *
 * @param pid The process.
 * @returns Its children, their children, and so on.
 */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      parents.set(Number(entry.name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // It ended while we looked: not a descendant any more.
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0;) {
    const next = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([p]) => p);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/**
 * Whether a process (or a thread group) still exists.
 *
 * @param pid The process.
 * @returns False once it is gone and reaped.
 */
export function alive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The calls the interaction log holds, oldest first.
 *
 * @param stateDir The host's state directory.
 * @returns Each call's tool and outcome.
 */
export async function loggedCalls(
  stateDir: string,
): Promise<Array<{ tool: string; outcome: string }>> {
  const dir = `${stateDir}/interactions`;
  const names = (await Array.fromAsync(Deno.readDir(dir))).map((each) => each.name).sort();
  const lines: string[] = [];
  for (const name of names.filter((each) => each.endsWith(".jsonl"))) {
    lines.push(...(await Deno.readTextFile(`${dir}/${name}`)).split("\n").filter(Boolean));
  }
  return lines.map((line) => JSON.parse(line)).filter((record) => typeof record.tool === "string");
}
