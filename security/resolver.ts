/**
 * The inner boundary: every path a tool touches is resolved here first.
 *
 * lexical check of the raw string → resolve against the primary root →
 * containment (lexical) → blacklist → real path (symlinks followed) →
 * containment against every root (with a separator, never a bare prefix) →
 * blacklist again → file type → hard links. The operation then uses the
 * resolved real path, anchored to its directory (see `anchored.ts`), never
 * the raw string again.
 *
 * Errors never reveal whether a path outside the roots exists.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { fileURLToPath } from "node:url";
import { type Blacklist, compileBlacklist } from "./blacklist.ts";
import { ToolError } from "./errors.ts";
import { leadingPartMatcher } from "./glob.ts";
import type { NativeFs } from "./native_fs.ts";
import type { Policy } from "./policy.ts";
import { compileProtection, type Protection } from "./protected.ts";

/** The longest path the resolver accepts, in characters. */
export const MAX_PATH_LENGTH = 4096;

/** The most directories a path may go down, from `/` (the walkers stop at 64 below a root). */
export const MAX_PATH_DEPTH = 128;

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
  #leadsToProtected: Array<{ glob: string; why: string; test: (dir: string) => boolean }>;
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
    this.#leadsToProtected = policy.protected.map((rule) => ({
      ...rule,
      test: leadingPartMatcher(rule.glob, true),
    }));
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
    const lexical = this.#lexical(raw);
    const write = options.write ?? false;
    if (write) this.refuseProtected(raw, lexical);
    this.#inside(raw, lexical);
    let real: string;
    try {
      real = this.#native?.realPath(lexical) ?? Deno.realPathSync(lexical);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || !options.mayCreate) {
        this.#explainMissing(raw, lexical, error);
      }
      return this.#newPath(raw, lexical, options.createParents ?? false, write);
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
    const holds = (dir: string, path: string) => path === dir || path.startsWith(`${dir}/`);
    const from = JSON.stringify(raws.source);
    if (holds(source, this.policy.stateDir)) {
      throw new ToolError(
        "path_denied",
        `Cannot move ${from}: it holds the host's state directory`,
      );
    }
    const root = this.policy.roots.find((each) => holds(source, each));
    if (root !== undefined) {
      throw new ToolError("path_denied", `Cannot move ${from}: it holds the root "${root}"`);
    }
    const to = JSON.stringify(raws.destination);
    for (const file of this.policy.protectedFiles) {
      if (holds(source, file.path)) {
        throw new ToolError(
          "protected_path",
          `${from} is protected: it holds "${
            this.display(file.path)
          }" (${file.why}); move what is around it instead`,
        );
      }
      if (holds(destination, file.path)) {
        throw new ToolError(
          "protected_path",
          `${to} is protected: a directory moved there would hold "${
            this.display(file.path)
          }" (${file.why})`,
        );
      }
    }
    const where = this.locate(destination);
    const rule = where && this.#leadsToProtected.find((each) => each.test(where.relative));
    if (rule) {
      throw new ToolError(
        "protected_path",
        `${to} is protected: what a directory moved there holds would be protected (${rule.glob}: ${rule.why}); move it elsewhere`,
      );
    }
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

  #lexical(raw: unknown): string {
    if (typeof raw !== "string" || raw.length === 0) {
      throw new ToolError("invalid_path", "Cannot use an empty path: give a path inside the roots");
    }
    const shown = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);
    refuseMalformed(raw, shown);
    // With no roots (a host-side tool's context) every path is outside.
    const resolved = posix.resolve(this.policy.roots[0] ?? "/", urlPath(raw, shown));
    // Every directory on the way is checked at each open: a path thousands deep costs minutes.
    const depth = resolved.split("/").length - 1;
    if (depth > MAX_PATH_DEPTH) {
      throw new ToolError(
        "invalid_path",
        `Cannot use ${shown}: it is ${depth} directories deep, the limit is ${MAX_PATH_DEPTH}`,
      );
    }
    return resolved;
  }

  #inside(raw: string, path: string): void {
    const where = this.locate(path);
    if (!where) throw this.#outside(raw);
    const glob = this.hidden(path);
    if (glob) throw hiddenError(raw, glob);
  }

  #outside(raw: string): ToolError {
    return new ToolError(
      "path_denied",
      `${JSON.stringify(raw)} is outside the allowed roots (${this.policy.roots.join(", ")})`,
    );
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

  #newPath(raw: string, lexical: string, createParents: boolean, write: boolean): ResolvedPath {
    const name = posix.basename(lexical);
    let parent = posix.dirname(lexical);
    const missing: string[] = [name];
    let realParent: string | undefined;
    while (realParent === undefined) {
      try {
        realParent = Deno.realPathSync(parent);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) {
          this.#explainMissing(raw, parent, error);
        }
        this.#refuseOutwardLinks(raw, parent);
        if (!createParents) {
          throw new ToolError(
            "not_found",
            `Cannot create ${JSON.stringify(raw)}: its directory "${
              this.display(parent)
            }" does not exist (create it first, or pass create_parents: true where the tool offers it)`,
          );
        }
        this.#refuseDanglingLink(raw, parent);
        missing.unshift(posix.basename(parent));
        parent = posix.dirname(parent);
      }
    }
    const where = this.locate(realParent);
    if (!where) throw this.#outside(raw);
    const parentInfo = Deno.statSync(realParent);
    if (!parentInfo.isDirectory) {
      throw new ToolError(
        "not_a_directory",
        `Cannot create ${JSON.stringify(raw)}: "${this.display(realParent)}" is not a directory`,
      );
    }
    const real = posix.join(realParent, ...missing);
    if (write) {
      for (let i = 1; i <= missing.length; i++) {
        this.refuseProtected(raw, posix.join(realParent, ...missing.slice(0, i)));
      }
    }
    const glob = this.hidden(real) ?? this.hidden(realParent);
    if (glob) throw hiddenError(raw, glob);
    this.#refuseDanglingLink(raw, posix.join(realParent, missing[0]!));
    return { path: real, ...this.locate(real)!, display: this.display(real), info: undefined };
  }

  /** A name that is a symlink whose target is missing: never written through. */
  #refuseDanglingLink(raw: string, path: string): void {
    const target = linkTarget(path);
    if (target === undefined) return;
    if (!this.locate(target)) throw this.#outside(raw);
    throw new ToolError(
      "path_denied",
      `${
        JSON.stringify(raw)
      } is a symbolic link whose target does not exist; tools never write through one`,
    );
  }

  /**
   * For a path that could not be resolved: if its nearest resolvable ancestor
   * lies outside (a symlink to an outside file or directory), or a dangling
   * symlink on the way points outside, it is "outside", never "missing".
   */
  #refuseOutwardLinks(raw: string, lexical: string): void {
    let probe = lexical;
    while (this.locate(probe)) {
      try {
        const real = Deno.realPathSync(probe);
        if (!this.locate(real)) throw this.#outside(raw);
        return;
      } catch (error) {
        if (error instanceof ToolError) throw error;
        // Missing, a dangling link or unreadable: judged below by where a link there points.
      }
      const target = linkTarget(probe);
      if (target !== undefined && !this.locate(target)) throw this.#outside(raw);
      const up = posix.dirname(probe);
      if (up === probe) break;
      probe = up;
    }
  }

  /** Throws the error for a path that could not be resolved, without leaking what lies outside. */
  #explainMissing(raw: string, lexical: string, error: unknown): never {
    this.#refuseOutwardLinks(raw, lexical);
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError("not_found", `${JSON.stringify(raw)} does not exist`);
    }
    if (error instanceof Deno.errors.NotADirectory) {
      throw new ToolError(
        "not_found",
        `${JSON.stringify(raw)} does not exist (a part of it is a file)`,
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/too many levels of symbolic links|ELOOP/i.test(message)) {
      throw new ToolError("path_denied", `${JSON.stringify(raw)} is a symbolic link loop`);
    }
    if (/name too long|ENAMETOOLONG/i.test(message)) {
      throw new ToolError(
        "invalid_path",
        `Cannot use ${JSON.stringify(raw)}: a name in it is too long`,
      );
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw this.#outside(raw);
    }
    throw error;
  }
}

/** Refuse a raw path whose text cannot be a path meant as such (too long, control characters, quoted, `~`). */
function refuseMalformed(raw: string, shown: string): void {
  if (raw.length > MAX_PATH_LENGTH) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: longer than ${MAX_PATH_LENGTH} characters`,
    );
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: it contains a control character (NUL, tab or newline)`,
    );
  }
  if (raw.trim() !== raw) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: it has leading or trailing white space`,
    );
  }
  if (/^(["'`]).*\1$/s.test(raw)) {
    throw new ToolError("invalid_path", `Cannot use ${shown}: remove the quotes around the path`);
  }
  if (raw.startsWith("~")) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: "~" is not expanded; give a path inside the roots`,
    );
  }
}

/** The path a `file://` URL names; a plain path as it is; any other URL refused. */
function urlPath(raw: string, shown: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return raw;
  if (!raw.toLowerCase().startsWith("file://")) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: only plain paths and file:// URLs are paths`,
    );
  }
  try {
    return fileURLToPath(raw);
  } catch {
    throw new ToolError("invalid_path", `Cannot use ${shown}: not a valid file:// URL`);
  }
}

/** Where a symlink points (lexically, relative to its directory), or `undefined` when not a symlink. */
function linkTarget(path: string): string | undefined {
  try {
    if (!(Deno.lstatSync(path)).isSymlink) return undefined;
    return posix.resolve(posix.dirname(path), Deno.readLinkSync(path));
  } catch {
    // Missing or unreadable: no link this check can follow (the caller goes on to its parent).
    return undefined;
  }
}

function hiddenError(raw: string, glob: string): ToolError {
  return new ToolError(
    "path_denied",
    `${JSON.stringify(raw)} is hidden by the blacklist (${glob})`,
  );
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
