/**
 * `toolhost doctor`: live probes of both boundaries on a real host.
 *
 * - Outer: inside a tool worker started exactly as the host starts them, raw
 *   Deno operations outside the roots (read, write, run, net, env) must fail
 *   with `NotCapable`.
 * - Inner: through the full host, a symlink to outside, `..` and an absolute
 *   path outside must be `path_denied`.
 *
 * @module
 */

import type { ToolResult } from "../tools/tool.ts";
import type { HostConfig } from "./config.ts";
import { createHost } from "./host.ts";
import { assetPaths } from "./launcher.ts";
import { WorkerPool } from "./worker_pool.ts";
import type { Probe } from "./worker_protocol.ts";

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
 * @returns The report.
 */
export async function runDoctor(config: HostConfig): Promise<DoctorReport> {
  const outsideDir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "toolhost-doctor-outside-" }),
  );
  const secret = `${outsideDir}/secret.txt`;
  await Deno.writeTextFile(secret, "toolhost doctor: outside content\n");
  const link = `${config.policy.roots[0]}/.toolhost-doctor-link-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.symlink(secret, link);
    const probes = [
      ...(await outerProbes(config, outsideDir, secret, link)),
      ...(await innerProbes(config, secret, link)),
    ];
    return { probes, roots: config.policy.roots, ok: probes.every((probe) => probe.ok) };
  } finally {
    await Deno.remove(link).catch(() => {});
    await Deno.remove(outsideDir, { recursive: true }).catch(() => {});
  }
}

async function outerProbes(
  config: HostConfig,
  outsideDir: string,
  secret: string,
  link: string,
): Promise<ProbeResult[]> {
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
    return results;
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

async function innerProbes(
  config: HostConfig,
  secret: string,
  link: string,
): Promise<ProbeResult[]> {
  const root = config.policy.roots[0]!;
  const host = await createHost({ config: { ...config, tools: {} }, logger: { log: () => {} } });
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
    return results;
  } finally {
    await host.close();
  }
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}
