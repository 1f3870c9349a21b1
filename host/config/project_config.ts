/**
 * A config file found inside a root, not trusted by the user: what of it
 * applies. Project content is untrusted input — a cloned repository ships
 * its own `toolhost.json`, and an agent can write one — so such a file may
 * only tighten the host. Every key that starts a program (`upstream`,
 * `sinks.mcpJson`, a `ripgrep` or `shell.bwrap` path), opens a port
 * (`hooks`), loosens confinement (`landlock: false`, `allowHardlinks: true`,
 * `unprotect`, `unhide`, addresses in `net.allow`, `net.nameServer`,
 * `net.searchUrl`, `net.userAgent`, `shell.network`, `shell.unconfined`,
 * `shell.env`, `shell.path`), moves state (`stateDir`), widens the roots or
 * changes the user's record (`log`, but for `enabled: true` and more
 * `redactKeys`) is dropped, and each number may only lower its default.
 * What only tightens, or only chooses among the tools, applies:
 * `blacklist`, `protect`, `tools`, approvals, `net.deny`, names in
 * `net.allow`, `shell.hide`, switching things off.
 *
 * The user lifts this for one exact file from outside the roots:
 * `toolhost trust` records its real path and SHA-256 (`trust.ts`).
 *
 * @module
 */

import { parseHostEntry } from "../../security/egress.ts";
import { DEFAULT_LIMITS } from "../../security/policy.ts";
import { HOST_DEFAULTS, HTTP_DEFAULTS, NET_DEFAULTS, SHELL_DEFAULTS } from "./defaults.ts";
import type { ConfigFile, NetSection, ShellSection } from "./schema.ts";

/** The file as it applies, and the keys dropped (dotted, in the file's order). */
export interface ProjectView {
  /** What applies. */
  readonly file: ConfigFile;
  /**
   * What was dropped, as dotted keys (`shell.network`, `limits.maxReadBytes`):
   * the top-level keys first, then each section's, in a fixed order.
   */
  readonly ignored: readonly string[];
}

/** A section's keys that are numbers a project may lower but not raise, with their defaults. */
type Ceilings = Readonly<Record<string, number>>;

/**
 * What of an untrusted config file inside a root applies.
 *
 * @param file The file as parsed.
 * @param narrowRoots Whether the roots it names (if any) all lie inside the first root.
 * @returns What applies, and the keys dropped.
 */
export function projectView(file: ConfigFile, narrowRoots: boolean): ProjectView {
  const ignored: string[] = [];
  const kept: ConfigFile = { ...file };
  const drop = (key: keyof ConfigFile) => {
    if (kept[key] === undefined) return;
    delete kept[key];
    ignored.push(key);
  };
  for (
    const key of ["stateDir", "unprotect", "unhide", "upstream", "sinks", "telemetry"] as const
  ) {
    drop(key);
  }
  if (file.allowHardlinks === true) drop("allowHardlinks");
  if (file.landlock === false) drop("landlock");
  if (file.ripgrep !== undefined && !["auto", "off"].includes(file.ripgrep)) drop("ripgrep");
  if (!narrowRoots) drop("roots");
  const numbers = { workers: HOST_DEFAULTS.workers, callTimeoutMs: HOST_DEFAULTS.callTimeoutMs };
  const view = atMost(kept, numbers, "", ignored);
  if (file.limits) view.limits = atMost(file.limits, { ...DEFAULT_LIMITS }, "limits.", ignored);
  if (file.log) view.log = logView(file.log, ignored);
  if (file.shell) view.shell = shellView(file.shell, ignored);
  if (file.http) view.http = atMost(file.http, HTTP_DEFAULTS, "http.", ignored);
  if (file.hooks?.enabled === false) view.hooks = { enabled: false };
  else if (file.hooks) {
    delete view.hooks;
    ignored.push("hooks");
  }
  if (file.net) view.net = netView(file.net, ignored);
  return { file: view, ignored };
}

/**
 * A section whose numbers may only lower their defaults: each higher one is
 * dropped and named.
 */
function atMost<T extends object>(
  section: T,
  ceilings: Ceilings,
  prefix: string,
  ignored: string[],
): T {
  const kept: Record<string, unknown> = { ...section as Record<string, unknown> };
  for (const [key, ceiling] of Object.entries(ceilings)) {
    const value = kept[key];
    if (typeof value === "number" && value > ceiling) {
      delete kept[key];
      ignored.push(`${prefix}${key}`);
    }
  }
  return kept as T;
}

/** `log`: the user's record; a project may only add keys to redact, or say it is on. */
function logView(log: NonNullable<ConfigFile["log"]>, ignored: string[]) {
  const kept: NonNullable<ConfigFile["log"]> = {};
  if (log.redactKeys) kept.redactKeys = log.redactKeys;
  if (log.enabled === true) kept.enabled = true;
  for (const key of Object.keys(log)) {
    if (key === "redactKeys" || (key === "enabled" && log.enabled === true)) continue;
    ignored.push(`log.${key}`);
  }
  return kept;
}

/** `shell`: off, hidden paths and lower limits apply; what loosens or names a program does not. */
function shellView(shell: ShellSection, ignored: string[]): ShellSection {
  const kept: ShellSection = { ...shell };
  const loosening = [
    ["network", shell.network === true],
    ["unconfined", shell.unconfined === true],
    ["bwrap", shell.bwrap !== undefined && !["auto", "off"].includes(shell.bwrap)],
    ["env", shell.env !== undefined],
    ["path", shell.path !== undefined],
  ] as const;
  for (const [key, loosens] of loosening) {
    if (!loosens) continue;
    delete kept[key];
    ignored.push(`shell.${key}`);
  }
  const times = { timeoutS: SHELL_DEFAULTS.timeoutS, maxTimeoutS: SHELL_DEFAULTS.maxTimeoutS };
  const limited = atMost(kept, times, "shell.", ignored);
  if (shell.limits) {
    limited.limits = atMost(shell.limits, SHELL_DEFAULTS.limits, "shell.limits.", ignored);
  }
  return limited;
}

/** `net`: names in `allow` narrow it; addresses, the DNS server, the search URL and headers do not apply. */
function netView(net: NetSection, ignored: string[]): NetSection {
  if (net === false) return false;
  const kept = { ...net };
  for (const key of ["nameServer", "searchUrl", "userAgent"] as const) {
    if (kept[key] === undefined) continue;
    delete kept[key];
    ignored.push(`net.${key}`);
  }
  if (net.allow) {
    const names = net.allow.filter((text) => !unlocksAddresses(text));
    if (names.length < net.allow.length) ignored.push("net.allow (addresses)");
    if (names.length > 0) kept.allow = names;
    else delete kept.allow;
  }
  return atMost(kept, NET_DEFAULTS, "net.", ignored);
}

/** Whether a `net.allow` entry is an address or range (it would make non-public addresses reachable). */
function unlocksAddresses(text: string): boolean {
  try {
    return parseHostEntry(text, false).range !== null;
  } catch {
    return true; // not a valid entry: the full parse says why, once it is trusted
  }
}
