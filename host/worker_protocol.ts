/**
 * Messages between the host and its tool workers.
 *
 * @module
 */

import type { LandlockPaths, LandlockStatus } from "../security/landlock.ts";
import type { Policy } from "../security/policy.ts";
import type { ToolResult } from "../tools/tool.ts";
import type { RegistryOptions, ToolDescriptor } from "../tools/registry.ts";

/** Host → worker. */
export type ToWorker =
  | {
    type: "init";
    /** Shared memory for the fast message path (see `mailbox.ts`). */
    mailboxes: { toWorker: SharedArrayBuffer; fromWorker: SharedArrayBuffer };
    policy: Policy;
    registry: RegistryOptions;
    /** Absolute path of ripgrep when the worker may run it. */
    ripgrep: string | null;
    /** Where libc is, to confine the worker's thread with Landlock (null: do not). */
    libc: string | null;
    /** Why there is no libc to use: switched off, or not found. */
    noLibc?: string;
    /** What stays reachable under Landlock. */
    landlock: LandlockPaths;
    /** A module exporting `TOOLS` to use instead of the built-in list (tests). */
    toolsModule: string | null;
  }
  | {
    type: "call";
    id: number;
    name: string;
    args: unknown;
    /** Fingerprints of what this session last read: editors refuse files that changed since. */
    expect?: Record<string, string>;
  }
  | { type: "cancel"; id: number; reason: "cancelled" | "timeout" }
  | { type: "probe"; id: number; probe: Probe; target: string };

/** A raw operation the doctor asks a worker to try, bypassing the resolver. */
export type Probe = "read" | "read_sync" | "write" | "write_sync" | "run" | "net" | "env";

/** Worker → host. */
export type FromWorker =
  | { type: "ready"; tools: ToolDescriptor[]; landlock: LandlockStatus }
  | { type: "progress"; id: number; progress: number; total?: number; message?: string }
  | { type: "result"; id: number; result: ToolResult; paths: string[]; seen?: SeenFiles }
  | { type: "unknown_tool"; id: number }
  | { type: "probe_result"; id: number; error: string | null }
  | { type: "log"; level: "warn" | "error"; message: string; detail?: string | undefined };

/** A whole file a call read or wrote: what stale-read protection remembers. */
export interface SeenFile {
  /** Its display path. */
  path: string;
  /** Its fingerprint (`security/safe_fs.ts`); the host reads the text itself when it needs it. */
  fingerprint: string;
  /** Its modification time (ms since the epoch, 0 when unknown) as the call saw it. */
  mtime: number;
  /** Its size in bytes as the call saw it. */
  size: number;
}

/** The files a call read and wrote. */
export interface SeenFiles {
  /** Whole files read. */
  reads: SeenFile[];
  /** Files written. */
  writes: SeenFile[];
}
