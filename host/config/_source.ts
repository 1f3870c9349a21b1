/**
 * Where the configuration comes from, and how far each file of it applies:
 * the config file and `.mcp.json`, read once, judged by where they lie and
 * whether the user trusted them. A file outside every root is the user's
 * own and applies in full; one inside a root applies in full only while the
 * user's trust list names it with the SHA-256 of its bytes (`trust.ts`),
 * and otherwise gives only what tightens the host (`project_config.ts`; an
 * untrusted `.mcp.json` starts no peer).
 *
 * @module
 */

import * as posix from "node:path/posix";
import { isInside } from "../../security/policy.ts";
import { parseMcpJson, type PeerEntry } from "../../sinks/peers.ts";
import { projectView } from "./project_config.ts";
import { CONFIG_SCHEMA, type ConfigFile } from "./schema.ts";
import { readTrust, sha256Hex, type TrustRecord, trustStorePath } from "./trust.ts";

/** The config file's name, looked up at the first root. */
export const CONFIG_FILE = "toolhost.json";

/**
 * Where a file's settings come from: the user's own (outside every root),
 * a project file the user trusted, or an untrusted project file.
 */
export type TrustOrigin = "user" | "project" | "untrusted";

/** How far one file applies. */
export interface FileTrust {
  /** Its path. */
  readonly path: string;
  /** The user's, a trusted project file, or an untrusted one. */
  readonly from: TrustOrigin;
  /** The keys it has that were ignored (dotted), for an untrusted config file. */
  readonly ignored: readonly string[];
}

/** What was judged, for the start-up line, `doctor` and `toolhost trust`. */
export interface TrustSettings {
  /** The user's trust list, or null when there is no place for one. */
  readonly store: string | null;
  /** The command that trusts this start's files. */
  readonly command: string;
  /** The config file. */
  readonly config: FileTrust;
  /** `.mcp.json`. */
  readonly mcpJson: FileTrust;
}

/** The configuration's source, read and judged. */
export interface Source {
  /** The config file's path (read or not). */
  readonly path: string;
  /** What of it applies (empty when there is none). */
  readonly file: ConfigFile;
  /** Whether there is a config file. */
  readonly found: boolean;
  /** What the file's relative paths are against: its directory, or the first root. */
  readonly base: string;
  /** The roots: the command line's, else the file's, else the current directory. */
  readonly roots: string[];
  /** The `.mcp.json` that lists efferent-copy peers. */
  readonly mcpJson: string;
  /** Its peers, from the very bytes whose trust was judged. */
  readonly peers: Readonly<Record<string, PeerEntry>>;
  /** How far each file applies. */
  readonly trust: TrustSettings;
}

/** What the command line gives the source. */
export interface SourceFlags {
  /** `--root`s. */
  roots?: readonly string[] | undefined;
  /** `--config FILE`. */
  configFile?: string | undefined;
}

/**
 * Find and read the config file, judge it and `.mcp.json`, and resolve the
 * roots.
 *
 * @param flags The command line's roots and config file.
 * @param warnings Where what was ignored is said (with the command that trusts it).
 * @returns The source.
 * @throws {TypeError} When a named config file is missing, or a file is not valid.
 */
export async function readSource(flags: SourceFlags, warnings: string[]): Promise<Source> {
  const firstRoot = posix.resolve(flags.roots?.[0] ?? Deno.cwd());
  const path = flags.configFile ? posix.resolve(flags.configFile) : `${firstRoot}/${CONFIG_FILE}`;
  const read = await readConfigFile(path, flags.configFile !== undefined);
  const base = read ? posix.dirname(path) : firstRoot;
  const own = read?.file.roots?.map((root) => posix.resolve(base, root)) ?? [];
  const given = flags.roots?.map((root) => posix.resolve(root)) ?? [firstRoot];
  const store = trustStorePath();
  const named = await rootSet([...given, ...own]);
  const records = await trustRecords(store, named, warnings);
  const command = trustCommand(given, flags.configFile);
  const config = await judge(path, read?.sha256 ?? null, named, records);
  let file = read?.file ?? {};
  if (read && config.from === "untrusted") {
    const view = projectView(read.file, await allInside(own, firstRoot));
    file = view.file;
    config.ignored.push(...view.ignored);
    if (view.ignored.length > 0) warnings.push(untrustedLine(path, view.ignored, command));
  }
  const kept = file.roots ? own : [];
  const roots = flags.roots ? given : kept.length > 0 ? kept : [firstRoot];
  const mcpJson = file.sinks?.mcpJson
    ? posix.resolve(base, file.sinks.mcpJson)
    : `${roots[0]}/.mcp.json`;
  const listed = await Deno.readFile(mcpJson).catch(() => null);
  const hash = listed && await sha256Hex(listed);
  const judged = await judge(mcpJson, hash, await rootSet(roots), records);
  const peers = Object.freeze(listed ? parseMcpJson(listed) : {});
  const trust = Object.freeze({ store, command, config, mcpJson: judged });
  return { path, file, found: read !== null, base, roots, mcpJson, peers, trust };
}

/**
 * Whether every path lies inside a directory, judged on real paths (as the
 * policy keeps roots): a link inside it that leads out does not count.
 */
async function allInside(paths: readonly string[], dir: string): Promise<boolean> {
  const realDir = await Deno.realPath(dir).catch(() => dir);
  for (const path of paths) {
    const real = await Deno.realPath(path).catch(() => undefined);
    if (real === undefined || !isInside(real, [realDir])) return false;
  }
  return true;
}

/** A file's standing: outside every root, trusted as it is now, or neither. */
async function judge(
  path: string,
  sha256: string | null,
  roots: RootSet,
  records: readonly TrustRecord[],
): Promise<{ path: string; from: TrustOrigin; ignored: string[] }> {
  const real = await Deno.realPath(path).catch(() => path);
  if (!inside(path, real, roots)) return { path, from: "user", ignored: [] };
  const ok = sha256 !== null &&
    records.some((record) => record.path === real && record.sha256 === sha256);
  return { path, from: ok ? "project" : "untrusted", ignored: [] };
}

/** The trust list's records; none (and a warning) when the list lies inside a root. */
async function trustRecords(
  store: string | null,
  roots: RootSet,
  warnings: string[],
): Promise<TrustRecord[]> {
  if (store === null) return [];
  if (inside(store, await Deno.realPath(store).catch(() => store), roots)) {
    warnings.push(
      `the trust list ${store} lies inside a root, where a tool could write it, so no file inside a root is trusted; set XDG_CONFIG_HOME to a directory outside the roots`,
    );
    return [];
  }
  return await readTrust(store, roots.real);
}

/** Roots as written and as real paths (a missing one as written). */
interface RootSet {
  readonly lexical: readonly string[];
  readonly real: readonly string[];
}

/** The roots, each also as its real path. */
async function rootSet(roots: readonly string[]): Promise<RootSet> {
  const real = await Promise.all(roots.map((root) => Deno.realPath(root).catch(() => root)));
  return { lexical: roots, real };
}

/**
 * Whether a path (existing or not) lies inside one of the roots, judged
 * both as written and on real paths: either makes it project content.
 */
function inside(path: string, real: string, roots: RootSet): boolean {
  return isInside(real, roots.real) || isInside(path, roots.lexical);
}

/** The command that trusts this start's files (`--root` and `--config` as given). */
function trustCommand(roots: readonly string[], configFile: string | undefined): string {
  const flags = roots.flatMap((root) => ["--root", root]);
  if (configFile) flags.push("--config", posix.resolve(configFile));
  return ["toolhost", "trust", ...flags].map(shellWord).join(" ");
}

/** A word as a POSIX shell reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The warning for an untrusted config file inside a root. */
function untrustedLine(path: string, ignored: readonly string[], command: string): string {
  return `"${path}" lies inside a root and is not trusted, so only what tightens the host applies: ignored "${
    ignored.join('", "')
  }"; review the file, then run: ${command}`;
}

/** Read and check a config file, with its bytes' SHA-256; a missing one that was not asked for is none. */
async function readConfigFile(
  path: string,
  required: boolean,
): Promise<{ file: ConfigFile; sha256: string } | null> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    const absent = error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable;
    if (absent && !required) return null; // no file: the defaults serve
    throw new TypeError(`Cannot read config "${path}": ${messageOf(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new TypeError(`Cannot parse config "${path}": ${messageOf(error)}`);
  }
  const parsed = CONFIG_SCHEMA.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      `${issue.path.join(".") || "(top)"}: ${issue.message}`
    );
    throw new TypeError(`Cannot use config "${path}": ${issues.join("; ")}`);
  }
  return { file: parsed.data, sha256: await sha256Hex(bytes) };
}

/** An error's message (the file APIs and `JSON.parse` throw `Error`s). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
