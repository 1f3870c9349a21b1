/**
 * What the safe file operations tell their caller and ask of it (the hooks),
 * the version of a file they read or wrote with its fingerprint, and the
 * parts they work with (resolver, anchor, hooks).
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Anchor } from "./anchored.ts";
import type { ResolvedPath, Resolver } from "./resolver.ts";

/** One version of a whole file: its bytes, and what identifies the version. */
export interface FileVersion {
  /** The content. */
  readonly bytes: Uint8Array;
  /** What `fstat` said of the open file (once written, for a write). */
  readonly info: Deno.FileInfo;
  /** The content's {@linkcode fingerprint}. */
  readonly fingerprint: string;
}

/** What a caller of the safe file operations (`SafeFs`) is told, and may refuse. */
export interface FsHooks {
  /** A path was touched (its display path). */
  touch?(path: string): void;
  /** A whole file was read. */
  read?(resolved: ResolvedPath, file: FileVersion): void;
  /** A file was written. */
  wrote?(resolved: ResolvedPath, file: FileVersion): void;
  /** A file or directory was moved (with everything beneath it). */
  moved?(source: ResolvedPath, destination: ResolvedPath): void;
  /**
   * The fingerprint a file must still have before it is overwritten (what the
   * agent last read), or `undefined` when there is none to check.
   */
  expected?(path: string): string | undefined;
  /**
   * The call may write: every path it resolves is refused up front when it
   * is protected (an editor says `protected_path` before it parses anything).
   */
  writes?: boolean;
}

/** What the safe file operations work with. */
export interface FsParts {
  /** The resolver every raw path goes through. */
  readonly resolver: Resolver;
  /** The anchor for the process's working directory. */
  readonly anchor: Anchor;
  /** Told of everything touched and read. */
  readonly hooks: FsHooks;
}

/**
 * A file's fingerprint: its size and the first 64 bits of the SHA-256 of its
 * bytes, in hex. It tells versions of one file apart (stale reads, caches
 * keyed by content); `<size>:?` stands for a version too large to hash, and
 * never equals a fingerprint.
 *
 * @param bytes The content.
 * @returns E.g. `1234:9f3a0c1b5e7d2a40`.
 */
export function fingerprint(bytes: Uint8Array): string {
  return `${bytes.length}:${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}`;
}
