/**
 * `.mcp.json` peers: reading the file, the self-reference defence, and the
 * commands a launcher must allow. No MCP client code here, so the launcher
 * can use it without loading the client.
 *
 * @module
 */

import * as posix from "node:path/posix";

/** One peer as `.mcp.json` has it. */
export type PeerEntry =
  | {
    command: string;
    args?: string[] | undefined;
    env?: Record<string, string> | undefined;
    cwd?: string | undefined;
  }
  | { type?: "http" | "streamable-http" | "sse" | undefined; url: string };

/** A peer started as a process. */
type StdioPeer = Extract<PeerEntry, { command: string }>;

/** The marker a wrapper script carries when it starts this host. */
export const SELF_REF_MARKER = "toolhost-self-ref-target:";

/**
 * Read the peers of a `.mcp.json` (a missing or malformed file has none).
 *
 * @param path The file.
 * @returns Peers by name.
 */
export async function readMcpJson(path: string): Promise<Record<string, PeerEntry>> {
  return parseMcpJson(await Deno.readFile(path).catch(() => new Uint8Array()));
}

/**
 * The peers a `.mcp.json`'s bytes list (malformed ones list none).
 *
 * @param bytes The file's bytes.
 * @returns Peers by name.
 */
export function parseMcpJson(bytes: Uint8Array): Record<string, PeerEntry> {
  try {
    const json = JSON.parse(new TextDecoder().decode(bytes)) as {
      mcpServers?: Record<string, PeerEntry>;
    };
    return json.mcpServers && typeof json.mcpServers === "object" ? json.mcpServers : {};
  } catch {
    return {};
  }
}

/**
 * Whether a peer is this host: its command or an argument is this host's
 * entry script, or a script it runs carries {@linkcode SELF_REF_MARKER}.
 *
 * @param entry The peer.
 * @param selfEntry This host's entry scripts (real paths): `mod.ts` and the launcher.
 * @param searchPath Where a bare command is looked up (default: `PATH`, when readable).
 * @returns True when wrapping it as a sink would loop.
 */
export async function isSelfReference(
  entry: PeerEntry,
  selfEntry: string | readonly string[],
  searchPath?: string,
): Promise<boolean> {
  if (!("command" in entry)) return false;
  const self = typeof selfEntry === "string" ? [selfEntry] : selfEntry;
  for (const lexical of scriptWords(entry, searchPath)) {
    if (self.includes(lexical)) return true; // decided without reading anything (a scoped host may not)
    let real: string;
    try {
      real = await Deno.realPath(lexical);
    } catch {
      continue;
    }
    if (self.includes(real)) return true;
    try {
      const file = await Deno.open(real);
      try {
        const head = new Uint8Array(64 * 1024);
        const n = (await file.read(head)) ?? 0;
        if (new TextDecoder().decode(head.subarray(0, n)).includes(SELF_REF_MARKER)) return true;
      } finally {
        file.close();
      }
    } catch {
      // not a readable file
    }
  }
  return false;
}

/**
 * What a `.mcp.json`'s peers need (for the launcher's `--allow-run`,
 * `--allow-net` and `--allow-read`): their commands and URL hosts, leaving
 * out this host itself, and the scripts that the self-reference defence
 * reads (so that the served process tells this host apart just as the
 * launcher did).
 *
 * @param path The `.mcp.json`.
 * @param selfEntry This host's entry scripts.
 * @returns The commands as written, the URL hosts, and the scripts to read.
 */
export async function peerNeeds(
  path: string,
  selfEntry: string | readonly string[],
): Promise<{ run: string[]; net: string[]; read: string[] }> {
  const run: string[] = [];
  const net: string[] = [];
  const read: string[] = [];
  for (const entry of Object.values(await readMcpJson(path))) {
    if ("url" in entry) {
      try {
        net.push(new URL(entry.url).host);
      } catch {
        // not a URL: discovery will say so
      }
      continue;
    }
    read.push(...(await scriptsOf(entry)));
    if (!(await isSelfReference(entry, selfEntry))) run.push(entry.command);
  }
  return { run, net, read };
}

/** The words of a stdio peer that may name a script, as paths (relative ones against its cwd). */
function scriptWords(entry: StdioPeer, searchPath?: string): string[] {
  const out: string[] = [];
  // A bare command (a team's committed `"command": "toolhost"`) is the file found on the PATH.
  const found = entry.command.includes("/")
    ? undefined
    : commandPath(entry.command, "/", searchPath ?? readablePath() ?? "");
  if (found) out.push(found);
  for (const word of [entry.command, ...(entry.args ?? [])]) {
    if (!word.includes("/") && !word.endsWith(".ts") && !word.endsWith(".sh")) continue;
    const path = word.startsWith("file://") ? new URL(word).pathname : word;
    out.push(path.startsWith("/") || !entry.cwd ? path : `${entry.cwd}/${path}`);
  }
  return out;
}

/** The files among a stdio peer's command and arguments (what the self-reference defence reads). */
async function scriptsOf(entry: StdioPeer): Promise<string[]> {
  const out: string[] = [];
  for (const lexical of scriptWords(entry)) {
    try {
      if ((await Deno.stat(lexical)).isFile) out.push(lexical, await Deno.realPath(lexical));
    } catch {
      // not a file here
    }
  }
  return out;
}

/** Options for {@linkcode sinkCommands}. */
export interface SinkCommandOptions {
  /** The working directory of peers without their own (the first root). */
  cwd: string;
  /** The search path for bare command names (default: `PATH`, when readable). */
  searchPath?: string;
}

/**
 * The absolute paths of the programs a `.mcp.json` would start as sinks
 * (never this host itself), for the launcher's `--allow-run`: a bare name
 * is looked up on the search path, a relative one against the peer's
 * working directory; a symlink gives both its path and its target. Names
 * that resolve to nothing are left out (discovery reports them).
 *
 * @param path The `.mcp.json`.
 * @param selfEntry This host's entry scripts.
 * @param options Working directory and search path.
 * @returns Absolute paths, without duplicates.
 * @example
 * ```ts
 * const run = await sinkCommands("/srv/project/.mcp.json", selfEntry(), { cwd: "/srv/project" });
 * // ["/usr/bin/deno", "/usr/lib/node_modules/deno/deno"]
 * ```
 */
export async function sinkCommands(
  path: string,
  selfEntry: string | readonly string[],
  options: SinkCommandOptions,
): Promise<string[]> {
  const out = new Set<string>();
  for (const entry of Object.values(await readMcpJson(path))) {
    if (!("command" in entry) || typeof entry.command !== "string" || entry.command === "") {
      continue;
    }
    if (await isSelfReference(entry, selfEntry, options.searchPath)) continue;
    const found = commandPath(entry.command, entry.cwd ?? options.cwd, options.searchPath);
    if (found === undefined) continue;
    out.add(found);
    out.add(await Deno.realPath(found).catch(() => found));
  }
  return [...out];
}

/**
 * Where a command runs from: a name with `/` against the working directory,
 * a bare name on the search path (absolute directories only, so that the
 * client's working directory never decides).
 *
 * @param command The command as configured.
 * @param cwd The working directory it would start in.
 * @param searchPath The search path (default: {@linkcode readablePath}, empty when `PATH` may not be read).
 * @returns The file, or `undefined` when there is none.
 */
export function commandPath(
  command: string,
  cwd: string,
  searchPath: string = readablePath() ?? "",
): string | undefined {
  if (command.includes("/")) return posix.resolve(cwd, command);
  for (const dir of searchPath.split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      const info = Deno.statSync(`${dir}/${command}`);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return `${dir}/${command}`;
    } catch {
      // not in this directory (or not visible from here)
    }
  }
  return undefined;
}

/** Script extensions: an argument ending so is a file the server runs. */
const SCRIPT = /\.(?:[cm]?[jt]sx?|py|sh|bash|rb|pl|php|lua)$/;

/**
 * The files a configured server runs: its command (found as it would be
 * started), and each argument that names a file (it has a `/` or a script
 * extension), against its working directory. They may not exist yet. An
 * argument that names an existing directory is the server's data (the
 * filesystem server's root), not a program: it is left out. An
 * agent that could write one would run code in this host's process, or in
 * the user's MCP client, at the next start: they are protected when they
 * lie inside a root.
 *
 * @param servers Servers by name, in the `.mcp.json` shape.
 * @param cwd The working directory of servers without their own (the first root).
 * @returns Absolute paths, each with the server's name.
 */
export function programFiles(
  servers: Readonly<Record<string, unknown>>,
  cwd: string,
): Array<{ path: string; server: string }> {
  const out: Array<{ path: string; server: string }> = [];
  for (const [server, raw] of Object.entries(servers)) {
    const entry = raw as Partial<StdioPeer>;
    if (typeof entry.command !== "string" || entry.command === "") continue;
    const dir = typeof entry.cwd === "string" ? posix.resolve(cwd, entry.cwd) : cwd;
    const command = commandPath(entry.command, dir);
    if (command !== undefined) out.push({ path: command, server });
    for (const arg of Array.isArray(entry.args) ? entry.args : []) {
      if (typeof arg !== "string" || arg.startsWith("-")) continue;
      if (!arg.includes("/") && !SCRIPT.test(arg)) continue;
      const path = posix.resolve(dir, arg.startsWith("file://") ? new URL(arg).pathname : arg);
      if (!isDirectory(path)) out.push({ path, server });
    }
  }
  return out;
}

/** Whether a path is an existing directory (not followed through a missing or unreadable one). */
function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false; // missing or not visible: judged as the file it may become
  }
}

/**
 * The search path: `PATH` when the process may read it (an unset `PATH` is
 * empty). The one place PATH is looked up, both for {@linkcode commandPath}
 * and for the host's `findRipgrep` (which tells "PATH not readable" from
 * "not found"): it lives here because `sinks/` may not import `host/`.
 *
 * @returns The search path, or `undefined` when the process may not read `PATH`.
 */
export function readablePath(): string | undefined {
  return Deno.permissions.querySync({ name: "env", variable: "PATH" }).state === "granted"
    ? Deno.env.get("PATH") ?? ""
    : undefined;
}
