/**
 * `toolhost trust`: the user's say-so, from outside the roots, that a config
 * file inside a root (a `toolhost.json`, a `.mcp.json`) may apply in full.
 * It shows what each file would enable that it does not now — the servers
 * it starts (in the sandbox), the keys that loosen the host — asks, and
 * records the file's real path and the SHA-256 of the very bytes it showed
 * in the user's trust list (`host/config/trust.ts`). A later change to the
 * file drops the trust. `--list` shows the list; `--forget` takes this
 * start's files off it.
 *
 * @module
 */

import { printable } from "../../security/printable.ts";
import {
  CONFIG_SCHEMA,
  type HostConfig,
  projectView,
  readTrust,
  sandboxNetwork,
  sha256Hex,
  writeTrust,
} from "../config/mod.ts";
import { readMcpJson } from "../../sinks/peers.ts";
import type { Printer } from "./printer.ts";

/** What `trust` is asked to do. */
export interface TrustOptions {
  /** Do not ask (scripts): trust what is shown. */
  yes: boolean;
  /** Print the trust list. */
  list: boolean;
  /** Take this start's files off the list. */
  forget: boolean;
  /** Where to print. */
  printer: Printer;
  /** Reads the user's answer (default: a line from standard input, which must be a terminal). */
  ask?: (question: string) => Promise<string | null>;
}

/** One file to trust, as it was read. */
interface Candidate {
  /** Its real path. */
  path: string;
  /** The SHA-256 of the bytes shown. */
  sha256: string;
  /** What trusting it enables, one line each. */
  enables: string[];
}

/**
 * Run `toolhost trust`.
 *
 * @param config The configuration as this start would see it.
 * @param options What to do, and where to print.
 * @returns The exit code.
 */
export async function trustCommand(config: HostConfig, options: TrustOptions): Promise<number> {
  const { printer } = options;
  const store = config.trust.store;
  if (store === null) {
    printer.err("toolhost: there is no place for the trust list: set HOME or XDG_CONFIG_HOME");
    return 2;
  }
  if (config.policy.roots.some((root) => store.startsWith(`${root}/`))) {
    printer.err(
      `toolhost: the trust list ${store} lies inside a root, where a tool could write it; set XDG_CONFIG_HOME to a directory outside the roots`,
    );
    return 2;
  }
  if (options.list) return await listTrust(store, printer);
  const files = [config.trust.config, config.trust.mcpJson].filter((file) => file.from !== "user");
  if (options.forget) return await forget(store, files.map((file) => file.path), printer);
  const candidates = (await Promise.all(files.map((file) => candidate(file.path, config))))
    .filter((each): each is Candidate => each !== undefined);
  if (candidates.length === 0) {
    printer.err(
      "toolhost: no config file inside the roots to trust (files outside them apply as they are)",
    );
    return 0;
  }
  for (const each of candidates) {
    if (!(await decide(each, store, options))) return 1;
  }
  return 0;
}

/** Show one file, ask, and record it; false when the user said no. */
async function decide(each: Candidate, store: string, options: TrustOptions): Promise<boolean> {
  const { printer } = options;
  printer.err(`${printable(each.path)} (SHA-256 ${each.sha256.slice(0, 16)}…) would:`);
  for (const line of each.enables) printer.err(`  - ${printable(line)}`);
  if (each.enables.length === 0) {
    printer.err("  - change nothing it does not already (it only tightens)");
  }
  if (!options.yes) {
    const ask = options.ask ?? askTerminal;
    const answer = await ask(`Trust ${each.path} as it is now? [y/N] `);
    if (answer === null) {
      printer.err(
        "toolhost: standard input is not a terminal: review the file, then run with --yes",
      );
      return false;
    }
    if (!/^y(es)?$/i.test(answer.trim())) {
      printer.err(`toolhost: not trusted: ${printable(each.path)}`);
      return false;
    }
  }
  await writeTrust(store, {
    add: { path: each.path, sha256: each.sha256, trustedAt: new Date().toISOString() },
  });
  printer.err(
    `toolhost: trusted ${
      printable(each.path)
    } (a change to it drops the trust; the next start applies it)`,
  );
  return true;
}

/** A file as it is now: its bytes' hash and what trusting it enables; none when it is gone. */
async function candidate(path: string, config: HostConfig): Promise<Candidate | undefined> {
  const bytes = await Deno.readFile(path).catch(() => null);
  if (bytes === null) return undefined;
  const real = await Deno.realPath(path);
  const sha256 = await sha256Hex(bytes);
  const enables = path === config.trust.mcpJson.path
    ? await peerLines(path)
    : configLines(new TextDecoder().decode(bytes), path);
  return { path: real, sha256, enables };
}

/** What a config file enables once trusted: each key an untrusted one loses, with its value. */
function configLines(text: string, path: string): string[] {
  let parsed;
  try {
    parsed = CONFIG_SCHEMA.safeParse(JSON.parse(text));
  } catch (error) {
    return [`(not valid JSON: ${(error as Error).message}; the host refuses it either way)`];
  }
  if (!parsed.success) return [`(not a valid config of ${path}; the host refuses it either way)`];
  const file = parsed.data;
  const lines = projectView(file, false).ignored.filter((key) =>
    key !== "upstream" && key !== "roots"
  )
    .map((key) => `apply "${key}": ${valueOf(file, key)}`);
  for (const [name, entry] of Object.entries(file.upstream?.mcpServers ?? {})) {
    const argv = "command" in entry ? [entry.command, ...(entry.args as string[] ?? [])] : [];
    lines.unshift(
      "command" in entry
        ? `start upstream server "${name}": ${argv.join(" ")} ` +
          `(in the sandbox: roots read-only, ${sandboxNet(entry)})`
        : `connect to upstream server "${name}" at ${entry.url}`,
    );
  }
  if (file.roots) {
    lines.push(`serve the roots ${JSON.stringify(file.roots)} when --root is not given`);
  }
  return lines;
}

/** What `.mcp.json` enables once trusted: its peers start for efferent copy (when it is on). */
async function peerLines(path: string): Promise<string[]> {
  return Object.entries(await readMcpJson(path)).map(([name, entry]) =>
    "url" in entry
      ? `mirror every call to "${name}" at ${entry.url} (when EFFERENT_COPY_ENABLE=1)`
      : `start "${name}": ${[entry.command, ...(entry.args ?? [])].join(" ")} ` +
        `(in the sandbox, when EFFERENT_COPY_ENABLE=1; ${sandboxNet(entry)})`
  );
}

/** What a sandboxed server's entry says of the network. */
function sandboxNet(entry: unknown): string {
  return sandboxNetwork(entry) ? "the network shared" : "no network";
}

/** A dotted key's value in a config file, short. */
function valueOf(file: Record<string, unknown>, key: string): string {
  let value: unknown = file;
  for (const part of key.replace(/ \(.*\)$/, "").split(".")) {
    value = (value as Record<string, unknown> | undefined)?.[part];
  }
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `--list`: every trusted file, and whether it is still as trusted. */
async function listTrust(store: string, printer: Printer): Promise<number> {
  const records = await readTrust(store, []);
  if (records.length === 0) printer.err(`toolhost: nothing is trusted (${store})`);
  for (const record of records) {
    const bytes = await Deno.readFile(record.path).catch(() => null);
    const now = bytes === null
      ? "gone"
      : (await sha256Hex(bytes)) === record.sha256
      ? "as trusted"
      : "changed since: not trusted";
    printer.out(`${printable(record.path)}\t${record.trustedAt}\t${now}`);
  }
  return 0;
}

/** `--forget`: take files off the list. */
async function forget(store: string, paths: string[], printer: Printer): Promise<number> {
  for (const path of paths) {
    const real = await Deno.realPath(path).catch(() => path);
    const was = await writeTrust(store, { forget: real });
    printer.err(`toolhost: ${was ? "no longer trusted" : "was not trusted"}: ${printable(real)}`);
  }
  return 0;
}

/** Ask on the terminal: the answer line, or null when standard input is not a terminal. */
async function askTerminal(question: string): Promise<string | null> {
  if (!Deno.stdin.isTerminal()) return null;
  Deno.stderr.writeSync(new TextEncoder().encode(question));
  const buffer = new Uint8Array(1024);
  const n = await Deno.stdin.read(buffer);
  return n === null ? "" : new TextDecoder().decode(buffer.subarray(0, n));
}
