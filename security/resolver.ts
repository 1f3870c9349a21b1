/**
 * The inner boundary: every path a tool touches is resolved here first.
 *
 * lexical check of the raw string → resolve against the primary root →
 * containment (lexical) → blacklist → real path (symlinks followed) →
 * containment against every root (with a separator, never a bare prefix) →
 * blacklist again → file type → hard links. The operation then uses the
 * resolved real path, anchored to its directory (see `anchored.ts`), never
 * the raw string again.
 * the raw string again. The lexical step is in `raw_path.ts`; paths that do
 * not resolve (new ones, missing ones) are judged in `missing_path.ts`.
 *
 * Errors never reveal whether a path outside the roots exists.
 *
 * @module
 */

import { type Blacklist, compileBlacklist } from "./blacklist.ts";
import { ToolError } from "./errors.ts";
import { explainMissing, hiddenError, newPath, outsideError } from "./missing_path.ts";
import { type LeadingRule, leadingRules, refuseDirectoryPlace } from "./move_rules.ts";
import type { NativeFs } from "./native_fs.ts";
import type { Policy } from "./policy.ts";
import { compileProtection, type Protection } from "./protected.ts";
import { lexicalPath } from "./raw_path.ts";

export { MAX_PATH_DEPTH, MAX_PATH_LENGTH } from "./raw_path.ts";

/** What a resolved path is expected to be. */
export type Want = "file" | "directory" | "any";

/** A path that passed every check. */
export interface ResolvedPath {
  /** The real absolute path: the only one an operation may use. */
  readonly path: string;
  /** The root that contains it. */
  readonly root: string;
  /** The path relative to its root, `/`-separated; "" for the root itself. */
  readonly relative: string;
  /** How to name it to the model: relative to the primary root when inside it. */
  readonly display: string;
  /** What `stat` said at check time; `undefined` for a path to be created. */
  readonly info: Deno.FileInfo | undefined;
}

/** Options for {@linkcode Resolver.resolve}. */
export interface ResolveOptions {
  /** What the path must be when it exists. Default `any`. */
  want?: Want;
  /** The path may not exist yet (its parent must, unless `createParents`). */
  mayCreate?: boolean;
  /** With `mayCreate`: missing parents will be created, so only the nearest existing ancestor must exist. */
  createParents?: boolean;
  /**
   * The operation creates, changes, moves or removes the path: a protected
   * path is refused (`protected_path`), judged on the lexical and the real path.
   */
  write?: boolean;
}

/**
 * Resolves and checks raw paths against a policy.
 *
 * @example
 * ```ts
 * const resolver = new Resolver(policy);
 * const file = await resolver.resolve("src/a.py", { want: "file" });
 * ```
 */
export class Resolver {
  /** The policy this resolver enforces. */
  readonly policy: Policy;
  #blacklist: Blacklist;
  #protection: Protection;
  #leadsToProtected: LeadingRule[];
  #native: NativeFs | undefined;

  /**
   * Resolve paths under a policy.
   *
   * @param policy The resolved policy.
   * @param native libc's `realpath` and `stat`, in a worker that Landlock
   *   confines ({@linkcode NativeFs}); each falls back to Deno's call when it fails.
   */
  constructor(policy: Policy, native?: NativeFs) {
    this.policy = policy;
    this.#native = native;
    this.#blacklist = compileBlacklist(policy.blacklist);
    this.#protection = compileProtection(policy.protected, policy.protectedFiles);
    this.#leadsToProtected = leadingRules(policy.protected);
  }

  /**
   * Resolve and check a raw path.
   *
   * @param raw The path as the model wrote it: relative to the primary root, or absolute.
   * @param options What the path must be.
   * @returns The checked path.
   * @throws {ToolError} `invalid_path`, `path_denied`, `not_found`, `not_a_file` or `not_a_directory`.
   */
  resolve(raw: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    try {
      return Promise.resolve(this.resolveSync(raw, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Resolve and check a raw path, synchronously (the tool worker's own
   * thread: fast system calls, and confined by Landlock where it is active).
   *
   * @param raw The model's path.
   * @param options What the path must be.
   * @returns The checked path.
   * @throws {ToolError} As {@linkcode Resolver.resolve}.
   */
  resolveSync(raw: string, options: ResolveOptions = {}): ResolvedPath {
    const lexical = lexicalPath(raw, this.policy.roots);
    const write = options.write ?? false;
    if (write) this.refuseProtected(raw, lexical);
    this.#inside(raw, lexical);
    let real: string;
    try {
      real = this.#native?.realPath(lexical) ?? Deno.realPathSync(lexical);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || !options.mayCreate) {
        explainMissing(this, raw, { lexical, error });
      }
      return newPath(this, raw, { lexical, createParents: options.createParents ?? false, write });
    }
    return this.#existing(raw, real, options.want ?? "any", write);
  }

  /**
   * Why a path may not be written, or `undefined` when it may.
   *
   * @param path An absolute path (real, for a decision that holds).
   * @returns The reason it is protected.
   */
  protectedWhy(path: string): string | undefined {
    return this.#protection.why(path, this.locate(path)?.relative);
  }

  /**
   * Refuse to write a protected path.
   *
   * @param raw The model's path, for the message.
   * @param path The absolute path judged (lexical or real).
   * @throws {ToolError} `protected_path` when it is protected.
   */
  refuseProtected(raw: string, path: string): void {
    const why = this.protectedWhy(path);
    if (why === undefined) return;
    const shown = this.display(path);
    const alias = shown === raw || this.locate(path) === undefined ? "" : ` (it is "${shown}")`;
    throw new ToolError(
      "protected_path",
      `${JSON.stringify(raw)} is protected: ${why}${alias}; tools may read it but never change it`,
    );
  }

  /**
   * Refuse to move a directory where its place, not its names, decides: one
   * that is or holds a root or the host's state directory, or holds a file
   * protected by path; or one whose new place would hold a file protected by
   * path, or would make a protected path of what it holds there, now or
   * later (`x` to `.hg`, where `hgrc` is protected). The names it holds are
   * judged one by one by the caller.
   *
   * @param raws The model's source and destination paths, for the messages.
   * @param source The directory's real path.
   * @param destination Its new real path.
   * @throws {ToolError} `path_denied` or `protected_path`.
   */
  refuseMovingDirectory(
    raws: { source: string; destination: string },
    source: string,
    destination: string,
  ): void {
    refuseDirectoryPlace(this, { raws, source, destination, leading: this.#leadsToProtected });
  }

  /**
   * The root containing a real absolute path, and the path relative to it.
   *
   * @param path A real absolute path.
   * @returns The root and relative path, or `undefined` when outside every root.
   */
  locate(path: string): { root: string; relative: string } | undefined {
    for (const root of this.policy.roots) {
      if (path === root) return { root, relative: "" };
      const prefix = root.endsWith("/") ? root : `${root}/`;
      if (path.startsWith(prefix)) return { root, relative: path.slice(prefix.length) };
    }
    return undefined;
  }

  /**
   * Why a path inside the roots is hidden, or `undefined` when it is not.
   *
   * @param path A real absolute path inside a root.
   * @returns The blacklist glob or "state directory" that hides it.
   */
  hidden(path: string): string | undefined {
    const state = this.policy.stateDir;
    if (path === state || path.startsWith(`${state}/`)) return "the host's state directory";
    for (const file of this.policy.hiddenFiles) {
      if (path === file || path.startsWith(`${file}/`)) return "a secret of the user's home";
    }
    const where = this.locate(path);
    return where ? this.#blacklist.match(where.relative) : undefined;
  }

  /**
   * How to name a real path to the model.
   *
   * @param path A real absolute path.
   * @returns Relative to the primary root when inside it (`.` for the root), else absolute.
   */
  display(path: string): string {
    const primary = this.policy.roots[0];
    if (primary === undefined) return path;
    if (path === primary) return ".";
    const prefix = primary.endsWith("/") ? primary : `${primary}/`;
    return path.startsWith(prefix) ? path.slice(prefix.length) : path;
  }

  #inside(raw: string, path: string): void {
    const where = this.locate(path);
    if (!where) throw this.#outside(raw);
    const glob = this.hidden(path);
    if (glob) throw hiddenError(raw, glob);
  }
  #outside(raw: string): ToolError {
    return outsideError(raw, this.policy.roots);
  }

  #existing(raw: string, real: string, want: Want, write: boolean): ResolvedPath {
    const where = this.locate(real);
    if (!where) throw this.#outside(raw);
    if (write) this.refuseProtected(raw, real);
    const glob = this.hidden(real);
    if (glob) throw hiddenError(raw, glob);
    const info = this.#native?.stat(real) ?? Deno.statSync(real);
    checkKind(raw, info, want, this.policy.allowHardlinks);
    return { path: real, ...where, display: this.display(real), info };
  }
}

function checkKind(raw: string, info: Deno.FileInfo, want: Want, allowHardlinks: boolean): void {
  if (!info.isFile && !info.isDirectory) {
    throw new ToolError(
      "path_denied",
      `${
        JSON.stringify(raw)
      } is not a regular file or directory (FIFOs, sockets and devices are refused)`,
    );
  }
  if (want === "file" && !info.isFile) {
    throw new ToolError("not_a_file", `${JSON.stringify(raw)} is a directory, not a file`);
  }
  if (want === "directory" && !info.isDirectory) {
    throw new ToolError("not_a_directory", `${JSON.stringify(raw)} is a file, not a directory`);
  }
  if (info.isFile && !allowHardlinks && (info.nlink ?? 1) > 1) {
    throw new ToolError(
      "path_denied",
      `${
        JSON.stringify(raw)
      } has ${info.nlink} hard links; set "allowHardlinks": true in toolhost.json to use such files`,
    );
  }
}
