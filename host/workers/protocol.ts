/**
 * Messages between the host and its tool workers.
 *
 * @module
 */

import type { LandlockPaths, LandlockStatus } from "../../security/landlock.ts";
import type { Policy } from "../../security/policy.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { RegistryOptions, ToolDescriptor } from "../../tools/registry.ts";
import type { RanProcess } from "../../tools/sessions.ts";

/** Host → worker. */
export type ToWorker =
  | {
    type: "init";
    /** Shared memory for the fast message path (see `mailbox.ts`). */
    mailboxes: { toWorker: SharedArrayBuffer; fromWorker: SharedArrayBuffer };
    policy: Policy;
    registry: RegistryOptions;
    /** Absolute path of ripgrep when the worker may run it (it checks that it runs). */
    ripgrep: string | null;
    /** Why there is no ripgrep, when there is none. */
    noRipgrep?: string;
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
    /** Files this session read: checked for changes by other means before the tool runs. */
    watch?: WatchedFile[];
  }
  | { type: "check"; id: number; watch: WatchedFile[] }
  /** Bring the roots' symbol index up to date, in the background (sent once the host started). */
  | { type: "prepare" }
  | { type: "cancel"; id: number; reason: "cancelled" | "timeout" }
  | { type: "probe"; id: number; probe: Probe; target: string };

/** A raw operation the doctor asks a worker to try, bypassing the resolver. */
export type Probe =
  | "read"
  | "read_sync"
  | "read_native"
  | "write"
  | "write_sync"
  | "run"
  | "net"
  | "env";

/** Worker → host. */
export type FromWorker =
  | {
    type: "ready";
    tools: ToolDescriptor[];
    /** Each tool's family, by tool name. */
    families: Record<string, string>;
    landlock: LandlockStatus;
    ripgrep: RipgrepStatus;
  }
  | { type: "progress"; id: number; progress: number; total?: number; message?: string }
  | {
    type: "result";
    id: number;
    result: ToolResult;
    paths: string[];
    seen?: SeenFiles;
    /** What changed by other means among the watched files, found before the tool ran. */
    changes?: FileChange[];
  }
  | { type: "checked"; id: number; changes: FileChange[] }
  /** A process the call's tool ran itself (ripgrep): the host records it in the session log. */
  | { type: "subprocess"; id: number; process: RanProcess }
  | { type: "unknown_tool"; id: number }
  | { type: "probe_result"; id: number; error: string | null }
  | { type: "log"; level: "warn" | "error"; message: string; detail?: string | undefined };

/** Whether ripgrep runs in a tool worker, and why not. */
export type RipgrepStatus =
  | { active: true; path: string; version: string }
  | { active: false; path: string | null; reason: string };

/** A whole file a call read or wrote: what stale-read protection remembers. */
export interface SeenFile {
  /** Its display path. */
  path: string;
  /** Its fingerprint (`security/safe_fs.ts`). */
  fingerprint: string;
  /**
   * Its text, for later diffs, when the host does not have this version's
   * yet and the file is small enough to diff (the host never reads it itself).
   */
  text?: string;
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
  /**
   * Files and directories the call moved, in order (display paths): what the
   * session read there is now at the new path, not deleted.
   */
  moves?: { from: string; to: string }[];
}

/** A file a session read, as the host last showed it: the worker checks it for changes. */
export interface WatchedFile {
  /** Its display path. */
  path: string;
  /** Its modification time (ms) and size when last seen: the cheap first check. */
  mtime: number;
  size: number;
  /** The fingerprint of the version the agent was last shown. */
  shown: string;
  /** Whether the host has that version's text (for a diff); else the worker sends the text. */
  hasText: boolean;
}

/** What a worker found of a watched file that is no longer as it was. */
export type FileChange =
  | { path: string; gone: "deleted" | "unreadable" }
  | {
    path: string;
    gone?: undefined;
    /** The fingerprint now (`<size>:?` for a file too large to read for a diff). */
    fingerprint: string;
    mtime: number;
    size: number;
    /** The text now, when it changed, is small enough and decodes. */
    text?: string;
  };
