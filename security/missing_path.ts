/**
 * Paths that do not resolve: a new path checked through its nearest existing
 * parent, and a missing path explained without telling whether anything
 * outside the roots exists (a link on the way that points outside makes it
 * "outside", never "missing"); and the two refusals the resolver shares with
 * them, a path outside the roots and a hidden one.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { ToolError } from "./errors.ts";

/** What these checks ask of the resolver (`Resolver` has it all). */
export interface PathJudge {
  /** The policy's roots, named in the error for a path outside them. */
  readonly policy: { readonly roots: readonly string[] };
  /** The root holding a real path, and the path relative to it. */
  locate(path: string): { root: string; relative: string } | undefined;
  /** How to name a real path to the model. */
  display(path: string): string;
  /** Why a path inside the roots is hidden, if it is. */
  hidden(path: string): string | undefined;
  /** Refuse to write a protected path. */
  refuseProtected(raw: string, path: string): void;
}

/**
 * Check a path that does not exist yet through its nearest existing parent:
 * inside a root, a directory, neither hidden nor (for a write) protected,
 * and no dangling link on the way.
 *
 * @param judge The resolver.
 * @param raw The model's path, for the messages.
 * @param options The lexical path; whether missing parents will be made; whether it is a write.
 * @returns The checked path, with no `info`.
 * @throws {ToolError} `path_denied`, `protected_path`, `not_found` or `not_a_directory`.
 */
export function newPath(
  judge: PathJudge,
  raw: string,
  options: { lexical: string; createParents: boolean; write: boolean },
): { path: string; root: string; relative: string; display: string; info: undefined } {
  const { lexical, createParents, write } = options;
  const name = posix.basename(lexical);
  let parent = posix.dirname(lexical);
  const missing: string[] = [name];
  let realParent: string | undefined;
  while (realParent === undefined) {
    try {
      realParent = Deno.realPathSync(parent);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        explainMissing(judge, raw, { lexical: parent, error });
      }
      refuseOutwardLinks(judge, raw, parent);
      if (!createParents) {
        throw new ToolError(
          "not_found",
          `Cannot create ${JSON.stringify(raw)}: its directory "${
            judge.display(parent)
          }" does not exist (create it first, or pass create_parents: true where the tool offers it)`,
        );
      }
      refuseDanglingLink(judge, raw, parent);
      missing.unshift(posix.basename(parent));
      parent = posix.dirname(parent);
    }
  }
  const where = judge.locate(realParent);
  if (!where) throw outsideError(raw, judge.policy.roots);
  const parentInfo = Deno.statSync(realParent);
  if (!parentInfo.isDirectory) {
    throw new ToolError(
      "not_a_directory",
      `Cannot create ${JSON.stringify(raw)}: "${judge.display(realParent)}" is not a directory`,
    );
  }
  const real = posix.join(realParent, ...missing);
  if (write) {
    for (let i = 1; i <= missing.length; i++) {
      judge.refuseProtected(raw, posix.join(realParent, ...missing.slice(0, i)));
    }
  }
  const glob = judge.hidden(real) ?? judge.hidden(realParent);
  if (glob) throw hiddenError(raw, glob);
  refuseDanglingLink(judge, raw, posix.join(realParent, missing[0]!));
  return { path: real, ...judge.locate(real)!, display: judge.display(real), info: undefined };
}

/** A name that is a symlink whose target is missing: never written through. */
function refuseDanglingLink(judge: PathJudge, raw: string, path: string): void {
  const target = linkTarget(path);
  if (target === undefined) return;
  if (!judge.locate(target)) throw outsideError(raw, judge.policy.roots);
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
function refuseOutwardLinks(judge: PathJudge, raw: string, lexical: string): void {
  let probe = lexical;
  while (judge.locate(probe)) {
    try {
      const real = Deno.realPathSync(probe);
      if (!judge.locate(real)) throw outsideError(raw, judge.policy.roots);
      return;
    } catch (error) {
      if (error instanceof ToolError) throw error;
      // Missing, a dangling link or unreadable: judged below by where a link there points.
    }
    const target = linkTarget(probe);
    if (target !== undefined && !judge.locate(target)) throw outsideError(raw, judge.policy.roots);
    const up = posix.dirname(probe);
    if (up === probe) break;
    probe = up;
  }
}

/**
 * Throw the error for a path that could not be resolved, without leaking what lies outside.
 *
 * @param judge The resolver.
 * @param raw The model's path, for the messages.
 * @param missing The lexical path that did not resolve, and the error resolving it gave.
 * @throws {ToolError} `not_found`, `path_denied` or `invalid_path`; any other error as it is.
 */
export function explainMissing(
  judge: PathJudge,
  raw: string,
  missing: { lexical: string; error: unknown },
): never {
  const { lexical, error } = missing;
  refuseOutwardLinks(judge, raw, lexical);
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
    throw outsideError(raw, judge.policy.roots);
  }
  throw error;
}

/**
 * The error for a path outside every root (the same whether it exists or not).
 *
 * @param raw The model's path.
 * @param roots The roots, named in the message.
 * @returns A `path_denied` error.
 */
export function outsideError(raw: string, roots: readonly string[]): ToolError {
  return new ToolError(
    "path_denied",
    `${JSON.stringify(raw)} is outside the allowed roots (${roots.join(", ")})`,
  );
}

/**
 * The error for a path the blacklist (or the host's state) hides.
 *
 * @param raw The model's path.
 * @param glob What hides it.
 * @returns A `path_denied` error.
 */
export function hiddenError(raw: string, glob: string): ToolError {
  return new ToolError(
    "path_denied",
    `${JSON.stringify(raw)} is hidden by the blacklist (${glob})`,
  );
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
