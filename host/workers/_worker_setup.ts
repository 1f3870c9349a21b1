/**
 * A tool worker's start-up: it loads the tools, confines its thread with
 * Landlock and gives up FFI for good, checks that ripgrep runs under that
 * confinement, and tells the host it is ready.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { Anchor } from "../../security/anchored.ts";
import { confineThread, type LandlockStatus } from "../../security/landlock.ts";
import { loadNativeFs, type NativeFs } from "../../security/native_fs.ts";
import { loadOverlayMarks, type OverlayMarks } from "../../security/overlay_marks.ts";
import { writablePaths } from "../../security/policy.ts";
import { Resolver } from "../../security/resolver.ts";
import { SafeFs } from "../../security/safe_fs.ts";
import { Registry } from "../../tools/registry.ts";
import { TOOL_FAMILIES, TOOLS } from "../../tools/mod.ts";
import { TREE_SITTER_SERVICE } from "../../tools/_treesitter.ts";
import { DeclaredTreeSitter } from "../../tools/declared_tree_sitter.ts";
import type { Tool } from "../../tools/tool.ts";
import type { FromWorker, RipgrepStatus, ToWorker } from "./protocol.ts";
import type { HostLink } from "./_host_link.ts";

/** How long `rg --version` may take before ripgrep is taken for broken. */
const RIPGREP_PROBE_MS = 10_000;

/** The init message. */
export type InitMessage = Extract<ToWorker, { type: "init" }>;

/** What a worker keeps from init for its calls. */
export interface WorkerState {
  /** The line to the host. */
  link: HostLink;
  /** The tools that are on. */
  registry: Registry;
  /** Every path goes through it. */
  resolver: Resolver;
  /** Anchored file operations, without a call's hooks. */
  fs: SafeFs;
  /** libc's file calls, which the reads use in a confined worker (for the doctor's probe). */
  native?: NativeFs;
  /** libc's attribute calls, which merging a shell command's overlay needs (`sandbox_guard`). */
  marks?: OverlayMarks;
  /** Values kept for the life of the worker (`ToolContext.shared`), the tree-sitter service among them. */
  shared: Map<string, unknown>;
  /** The calls running, by id, with what stops them. */
  inflight: Map<number, AbortController>;
  /** The external programs the tools may run. */
  binaries: { ripgrep?: string };
  /** How long the last call took, in ms. */
  lastCallMs: number;
}

/**
 * Set the worker up from its init message, then tell the host it is ready.
 *
 * @param message The init message.
 * @param link The line to the host, which the calls answer through.
 * @returns What the calls need.
 */
export async function init(message: InitMessage, link: HostLink): Promise<WorkerState> {
  const tools = message.toolsModule
    ? ((await import(message.toolsModule)) as { TOOLS: Tool[] }).TOOLS
    : TOOLS;
  // A test's own tools belong to no family.
  const families = message.toolsModule ? {} : { ...TOOL_FAMILIES };
  const registry = new Registry(tools, message.registry);
  const { landlock, native, marks } = confine(message);
  const resolver = new Resolver(message.policy, native);
  const anchor = new Anchor(message.policy.roots, landlock.active, native);
  // Run under the same confinement as every search will: a binary that cannot run is said, not skipped.
  const ripgrep: RipgrepStatus = message.ripgrep
    ? await probeRipgrep(message.ripgrep)
    : { active: false, path: null, reason: message.noRipgrep ?? "not configured" };
  self.postMessage(
    { type: "ready", tools: registry.list(), families, landlock, ripgrep } satisfies FromWorker,
  );
  return {
    link,
    registry,
    resolver,
    fs: new SafeFs(resolver, anchor),
    ...(native ? { native } : {}),
    ...(marks ? { marks } : {}),
    // The parser the tools share, with the declared grammars (the layer below knows no family).
    shared: new Map([[TREE_SITTER_SERVICE, new DeclaredTreeSitter()]]),
    inflight: new Map(),
    binaries: ripgrep.active ? { ripgrep: ripgrep.path } : {},
    lastCallMs: 0,
  };
}

/** What confinement gave the worker. */
interface Confined {
  landlock: LandlockStatus;
  native?: NativeFs;
  marks?: OverlayMarks;
}

/**
 * Confine this thread with Landlock and, once it is confined, load libc's
 * file calls for the reads ({@linkcode NativeFs}); load libc's attribute
 * calls for merging overlays ({@linkcode OverlayMarks}); then give up FFI
 * for good.
 */
function confine(message: InitMessage): Confined {
  if (!message.libc) {
    return {
      landlock: { active: false, abi: 0, reason: message.noLibc ?? "libc was not found" },
    };
  }
  try {
    const confined = confineThread(message.libc, message.landlock);
    const native = confined.active ? loadNativeFs(message.libc, message.policy.roots) : undefined;
    const marks = loadOverlayMarks(message.libc, writablePaths(message.policy));
    const landlock = { ...confined, nativeReads: native !== undefined };
    return { landlock, ...(native ? { native } : {}), ...(marks ? { marks } : {}) };
  } finally {
    Deno.permissions.revokeSync({ name: "ffi" });
  }
}

/** Run `rg --version` from this (confined) thread: ripgrep is used only if that works. */
async function probeRipgrep(path: string): Promise<RipgrepStatus> {
  try {
    // As the search tools run it: stdin a closed pipe (the confined thread may not open /dev/null).
    const child = new Deno.Command(path, {
      args: ["--version"],
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(RIPGREP_PROBE_MS),
    }).spawn();
    await child.stdin.close();
    const output = await child.output();
    const first = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim().split("\n")[0];
    if (output.success) return { active: true, path, version: first(output.stdout) ?? "" };
    return {
      active: false,
      path,
      reason: `"${path} --version" failed (exit code ${output.code}${
        output.stderr.length > 0 ? `: ${first(output.stderr)}` : ""
      })`,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { active: false, path, reason: `cannot run "${path}": ${message}` };
  }
}
