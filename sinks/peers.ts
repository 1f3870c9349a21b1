/**
 * `.mcp.json` peers: reading the file, the self-reference defence, and the
 * commands a launcher must allow. No MCP client code here, so the launcher
 * can use it without loading the client.
 *
 * @module
 */

/** One peer as `.mcp.json` has it. */
export type PeerEntry =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { type?: "http" | "streamable-http" | "sse"; url: string };

/** The marker a wrapper script carries when it starts this host. */
export const SELF_REF_MARKER = "toolhost-self-ref-target:";

/**
 * Read the peers of a `.mcp.json` (a missing or malformed file has none).
 *
 * @param path The file.
 * @returns Peers by name.
 */
export async function readMcpJson(path: string): Promise<Record<string, PeerEntry>> {
  try {
    const json = JSON.parse(await Deno.readTextFile(path)) as {
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
 * @param selfEntry This host's entry script (real path).
 * @returns True when wrapping it as a sink would loop.
 */
export async function isSelfReference(entry: PeerEntry, selfEntry: string): Promise<boolean> {
  if (!("command" in entry)) return false;
  for (const word of [entry.command, ...(entry.args ?? [])]) {
    if (!word.includes("/") && !word.endsWith(".ts") && !word.endsWith(".sh")) continue;
    const path = word.startsWith("file://") ? new URL(word).pathname : word;
    const lexical = path.startsWith("/") ? path : entry.cwd ? `${entry.cwd}/${path}` : path;
    if (lexical === selfEntry) return true; // decided without reading anything (a scoped host may not)
    let real: string;
    try {
      real = await Deno.realPath(
        entry.cwd && !path.startsWith("/") ? `${entry.cwd}/${path}` : path,
      );
    } catch {
      continue;
    }
    if (real === selfEntry) return true;
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
 * The commands and hosts a `.mcp.json`'s peers need (for the launcher's
 * `--allow-run` and `--allow-net`), leaving out this host itself.
 *
 * @param path The `.mcp.json`.
 * @param selfEntry This host's entry script.
 * @returns The commands as written, and the URL hosts.
 */
export async function peerNeeds(
  path: string,
  selfEntry: string,
): Promise<{ run: string[]; net: string[] }> {
  const run: string[] = [];
  const net: string[] = [];
  for (const entry of Object.values(await readMcpJson(path))) {
    if ("url" in entry) {
      try {
        net.push(new URL(entry.url).host);
      } catch {
        // not a URL: discovery will say so
      }
    } else if (!(await isSelfReference(entry, selfEntry))) {
      run.push(entry.command);
    }
  }
  return { run, net };
}
