/**
 * `toolhost doctor`: live probes of both boundaries on a real host.
 *
 * - Outer: inside a tool worker started exactly as the host starts them, raw
 *   Deno operations outside the roots (read, write, run, net, env) must fail
 *   with `NotCapable`.
 * - Inner: through the full host, a symlink to outside, `..` and an absolute
 *   path outside must be `path_denied`.
 * - Capabilities: ripgrep runs in a confined worker, each efferent-copy
 *   peer is a sink, each upstream server answers; the configuration has
 *   nothing that is ignored. A capability that is not in effect says why.
 * - Served: the server, started exactly as `mcp-config` prints it, confines
 *   its tool workers and uses ripgrep as the probes here found.
 *
 * @module
 */

import type { LandlockStatus } from "../../security/landlock.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { ConfigOverrides, HostConfig } from "../config/config.ts";
import { createHost } from "../host.ts";
import { assetPaths, type CommandLine, launchCommand } from "./launcher.ts";
import { efferentCopyEnabled, selfEntries } from "../config/efferent_env.ts";
import { WorkerPool } from "../workers/pool.ts";
import type { Probe, RipgrepStatus } from "../workers/protocol.ts";

/** One probe's outcome. */
export interface ProbeResult {
  /** What was tried. */
  name: string;
  /** Whether the boundary held. */
  ok: boolean;
  /** What happened. */
  detail: string;
}

/** The doctor's report. */
export interface DoctorReport {
  /** Every probe. */
  probes: ProbeResult[];
  /** The roots probed. */
  roots: readonly string[];
  /** True when every probe held. */
  ok: boolean;
}

/**
 * Run every probe against a configuration.
 *
 * @param config The resolved configuration.
 * @param overrides The command-line options it came from (the served probe starts with them).
 * @returns The report.
 */
export async function runDoctor(
  config: HostConfig,
  overrides: ConfigOverrides = {},
): Promise<DoctorReport> {
  const roots = config.policy.roots;
  const outsideDir = await makeOutsideDir(roots);
  if (outsideDir === undefined) {
    const probe = {
      name: "setup: a directory outside the roots to probe with",
      ok: false,
      detail: `every candidate (the temp directory, ${
        OUTSIDE_BASES.join(", ")
      }, the home directory) is inside the roots or not writable: the roots leave nothing outside to keep the tools from`,
    };
    return { probes: [probe], roots, ok: false };
  }
  const secret = `${outsideDir}/secret.txt`;
  await Deno.writeTextFile(secret, "toolhost doctor: outside content\n");
  const link = `${config.policy.roots[0]}/.toolhost-doctor-link-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.symlink(secret, link);
    const outer = await outerProbes(config, outsideDir, secret, link);
    const probes = [
      ...outer.probes,
      ripgrepProbe(outer.ripgrep, config),
      ...(await innerProbes(config, secret, link)),
      ...(await sinkProbes(config)),
      ...configProbes(config),
      await servedProbe(config, overrides, outer),
    ];
    return { probes, roots: config.policy.roots, ok: probes.every((probe) => probe.ok) };
  } finally {
    await Deno.remove(link).catch(() => {});
    await Deno.remove(outsideDir, { recursive: true }).catch(() => {});
  }
}

/** Where else to make the outside directory when the temp directory is inside a root. */
const OUTSIDE_BASES = ["/var/tmp", "/dev/shm"];

/**
 * Make a fresh directory outside every root, for the outside file the
 * probes try to reach (a root may hold the temp directory: `--root /tmp`).
 *
 * @returns Its real path, or `undefined` when no candidate place is outside the roots.
 */
async function makeOutsideDir(roots: readonly string[]): Promise<string | undefined> {
  let home: string | undefined;
  try {
    home = Deno.env.get("HOME");
  } catch {
    // no permission: skip it
  }
  for (const base of [undefined, ...OUTSIDE_BASES, home]) {
    let dir: string;
    try {
      dir = await Deno.realPath(
        await Deno.makeTempDir({
          prefix: "toolhost-doctor-outside-",
          ...(base === undefined ? {} : { dir: base }),
        }),
      );
    } catch {
      continue; // not there, or not writable
    }
    const inside = roots.some((root) =>
      dir === root || dir.startsWith(root.endsWith("/") ? root : `${root}/`)
    );
    if (!inside) return dir;
    await Deno.remove(dir);
  }
  return undefined;
}

async function outerProbes(
  config: HostConfig,
  outsideDir: string,
  secret: string,
  link: string,
): Promise<{ probes: ProbeResult[]; landlock: LandlockStatus; ripgrep: RipgrepStatus }> {
  const pool = await WorkerPool.start(config.policy, {
    size: 1,
    registry: {},
    ripgrep: config.ripgrep,
    extraRead: await assetPaths(),
    callTimeoutMs: config.callTimeoutMs,
    landlock: config.landlock,
    logger: { log: () => {} },
  });
  try {
    const cases: Array<[string, Probe, string]> = [
      ["worker: raw read outside the roots", "read", secret],
      ["worker: raw write outside the roots", "write", `${outsideDir}/written.txt`],
      ["worker: run a shell", "run", "/bin/sh"],
      ["worker: network", "net", "127.0.0.1"],
      ["worker: environment", "env", "HOME"],
    ];
    const results: ProbeResult[] = [];
    for (const [name, probe, target] of cases) {
      const error = await pool.probe(probe, target);
      const ok = error === "NotCapable";
      results.push({
        name,
        ok,
        detail: ok
          ? `denied by Deno (NotCapable): ${target}`
          : `not denied (${error ?? "succeeded"}): ${target}`,
      });
    }
    results.push(await landlockProbe(pool, link));
    return { probes: results, landlock: pool.landlock, ripgrep: pool.ripgrep };
  } finally {
    pool.close();
  }
}

/** The kernel layer: with Landlock, the worker's own thread cannot open a symlink to outside. */
async function landlockProbe(pool: WorkerPool, link: string): Promise<ProbeResult> {
  const name = "kernel: Landlock confines the tool worker's thread";
  const status = pool.landlock;
  if (!status.active) {
    return {
      name,
      ok: status.abi === 0,
      detail: status.abi === 0
        ? `not available here (${status.reason}); the resolver's checks stand alone against symlink swaps`
        : `the kernel has Landlock ABI ${status.abi} but confinement failed: ${status.reason}`,
    };
  }
  const error = await pool.probe("read_sync", link);
  const ok = error === "PermissionDenied";
  return {
    name,
    ok,
    detail: ok
      ? `active (ABI ${status.abi}): a symlink to outside could not be opened by the worker's thread`
      : `active (ABI ${status.abi}) but the symlink read was not refused (${error ?? "succeeded"})`,
  };
}

/**
 * ripgrep in a confined worker: in use, or why not. A path the user gave
 * that cannot run fails; "not found" and "switched off" only say so.
 */
function ripgrepProbe(status: RipgrepStatus, config: HostConfig): ProbeResult {
  const name = "ripgrep: runs in a confined tool worker";
  if (status.active) {
    return { name, ok: true, detail: `in use: ${status.version} (${status.path})` };
  }
  const chosen = config.ripgrep.path !== null;
  return {
    name,
    ok: !chosen,
    detail: `not in use: ${status.reason}; searches use the JS walker${
      chosen ? "" : " (install ripgrep, or name it with --ripgrep, for faster searches)"
    }`,
  };
}

/** Each efferent-copy peer: a sink, or why not (when efferent copy is on). */
async function sinkProbes(config: HostConfig): Promise<ProbeResult[]> {
  const { readMcpJson, isSelfReference } = await import("../../sinks/peers.ts");
  const peers = Object.entries(await readMcpJson(config.mcpJson));
  const others: string[] = [];
  for (const [name, entry] of peers) {
    if (!(await isSelfReference(entry, selfEntries()))) others.push(name);
  }
  if (others.length === 0) return [];
  if (!efferentCopyEnabled()) {
    return [{
      name: "efferent copy",
      ok: true,
      detail: `off (EFFERENT_COPY_ENABLE=1 turns it on); peers in ${config.mcpJson}: ${
        others.join(", ")
      }`,
    }];
  }
  const { discoverSinks } = await import("../../sinks/discovery.ts");
  const found = await discoverSinks({
    mcpJson: config.mcpJson,
    selfEntry: selfEntries(),
    cwd: config.policy.roots[0]!,
    warn: () => {},
  });
  const probes: ProbeResult[] = found.sinks.map((sink) => ({
    name: `efferent copy: sink "${sink.name}"`,
    ok: true,
    detail: "a sink: its observe tool takes {tool_name, args}",
  }));
  for (const peer of found.rejected) {
    probes.push({
      name: `efferent copy: sink "${peer.name}"`,
      ok: false,
      detail: `not a sink: ${peer.reason}`,
    });
  }
  await Promise.all(found.sinks.map((sink) => sink.close()));
  return probes;
}

/** Whatever the configuration says that is not in effect. */
function configProbes(config: HostConfig): ProbeResult[] {
  return config.warnings.map((warning) => ({
    name: "configuration: ignored",
    ok: false,
    detail: warning,
  }));
}

async function innerProbes(
  config: HostConfig,
  secret: string,
  link: string,
): Promise<ProbeResult[]> {
  const root = config.policy.roots[0]!;
  const host = await createHost({
    config: { ...config, tools: {} },
    logger: { log: () => {} },
    efferentCopy: false,
  });
  try {
    const depth = root.split("/").length;
    const cases: Array<[string, Record<string, unknown>]> = [
      ["resolver: symlink to a file outside", { path: link.slice(root.length + 1) }],
      ["resolver: `..` escape", { path: `${"../".repeat(depth)}${secret.slice(1)}` }],
      ["resolver: absolute path outside", { path: secret }],
      ["resolver: file:// URL outside", { path: `file://${secret}` }],
    ];
    const results: ProbeResult[] = [];
    for (const [name, args] of cases) {
      const result = await host.call("read_file", args, { session: "doctor", client: "doctor" });
      const text = textOf(result);
      const ok = result.isError === true && text.startsWith("path_denied:") &&
        !text.includes("outside content");
      results.push({ name, ok, detail: ok ? text : `not denied: ${text.slice(0, 200)}` });
    }
    for (const upstream of host.status().upstreams) {
      results.push({
        name: `upstream "${upstream.name}": answers`,
        ok: upstream.state === "connected",
        detail: upstream.state === "connected"
          ? `connected (${upstream.tools} tools)`
          : `not connected: ${upstream.error}`,
      });
    }
    return results;
  } finally {
    await host.close();
  }
}

/**
 * The probes above run in this process, whose permissions may be broader
 * than the served process's: start the server exactly as `mcp-config`
 * prints it, and check that it confines its tool workers and uses ripgrep
 * as found here (it once could not find libc, and once could not see
 * ripgrep, under its own permissions, so each was off there alone).
 */
async function servedProbe(
  config: HostConfig,
  overrides: ConfigOverrides,
  here: { landlock: LandlockStatus; ripgrep: RipgrepStatus },
): Promise<ProbeResult> {
  const name = "served process: the server mcp-config prints confines and searches as probed here";
  let line: string;
  try {
    line = await servedStatus(launchCommand(config, overrides));
  } catch (error) {
    return { name, ok: false, detail: `could not start the server: ${String(error)}` };
  }
  const problems: string[] = [];
  if (line.includes("tool workers confined by Landlock") !== here.landlock.active) {
    problems.push(`Landlock ${here.landlock.active ? "active" : "not active"} here`);
  }
  if (/ripgrep [^;:]* in use \(/.test(line) !== here.ripgrep.active) {
    problems.push(`ripgrep ${here.ripgrep.active ? "in use" : "not in use"} here`);
  }
  const ok = problems.length === 0;
  return { name, ok, detail: ok ? line : `${problems.join(", ")}, but it said: ${line}` };
}

/** How long the scoped server may take to say what confines it. */
const SERVED_STATUS_MS = 30_000;

/**
 * Start a server, read the line it says on stderr when it begins to serve,
 * and stop it.
 *
 * @param command How to start it.
 * @returns The line, from "serving" on.
 * @throws {Error} When it stops or stays silent for 30 s without saying it.
 */
export async function servedStatus(command: CommandLine): Promise<string> {
  const child = new Deno.Command(command.command, {
    args: command.args,
    cwd: "/",
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), SERVED_STATUS_MS);
  let said = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!/toolhost: serving[^\n]*\n/.test(said)) {
      const { value, done } = await reader.read();
      if (done) break;
      said += value;
    }
  } finally {
    await child.stdin.close();
    await reader.cancel();
    await child.status;
    clearTimeout(timer);
  }
  const line = said.match(/toolhost: (serving[^\n]*)/)?.[1];
  if (line === undefined) throw new Error(`it said: ${said.trim().slice(0, 500) || "nothing"}`);
  return line;
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}
