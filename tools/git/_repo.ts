/**
 * Where a git tool works: the path the model gave, checked lexically
 * against the roots before anything runs, the repository that holds it
 * (found by git in the sandbox), and the repository's filter drivers,
 * whose commands are overridden on every later command.
 *
 * @module
 */

import { posix } from "node:path";
import { isInside } from "../../security/policy.ts";
import { Resolver } from "../../security/resolver.ts";
import { type ToolContext, ToolError } from "../tool.ts";
import { type ConfigEntry, gitFailure, runGit } from "./_git.ts";

/** A path the model gave, checked against the roots. */
export interface GitPath {
  /** Absolute, lexical (`..` and `.` resolved, symlinks not followed). */
  readonly abs: string;
  /** The root that holds it. */
  readonly root: string;
}

/** A repository and the place in it a call is about. */
export interface GitTarget {
  /** The repository's top directory (absolute, inside a root). */
  readonly top: string;
  /** The pathspec of the path, relative to the top (`.` for the top or no path). */
  readonly spec: string;
  /** The path as the model may give it back (`.` for the primary root). */
  readonly display: string;
  /** Whether HEAD names a commit (false in a repository with no commit yet). */
  readonly hasHead: boolean;
  /** Config overrides for the repository's filter drivers (their commands emptied). */
  readonly overrides: readonly ConfigEntry[];
}

/**
 * Check a path lexically: relative to the primary root or absolute, inside
 * a root, not hidden (the state directory, the blacklist). Nothing on disk
 * is read: git reads it later, in the sandbox.
 *
 * @param ctx The call's context (its policy).
 * @param raw The path as the model wrote it.
 * @returns The absolute path and its root.
 * @throws {ToolError} `invalid_path` for a malformed path, `path_denied` outside the roots or hidden.
 */
export function checkPath(ctx: ToolContext, raw: string): GitPath {
  const shown = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);
  // deno-lint-ignore no-control-regex
  if (raw === "" || raw.length > 4096 || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw new ToolError(
      "invalid_path",
      `Cannot use ${shown}: give a path without control characters`,
    );
  }
  const roots = ctx.policy.roots;
  const abs = posix.resolve(roots[0] ?? "/", raw);
  const root = [...roots].sort((a, b) => b.length - a.length).find((r) => isInside(abs, [r]));
  if (root === undefined) {
    throw new ToolError(
      "path_denied",
      `${shown} is outside the allowed roots (${roots.join(", ")})`,
    );
  }
  const resolver = ctx.shared("git.resolver", () => new Resolver(ctx.policy));
  const hidden = resolver.hidden(abs);
  if (hidden !== undefined) throw new ToolError("path_denied", `${shown} is hidden (${hidden})`);
  return { abs, root };
}

/**
 * How to name an absolute path to the model: relative to the primary root
 * when inside it, else absolute.
 *
 * @param ctx The call's context (its policy).
 * @param abs An absolute path.
 * @returns The name (`.` for the primary root).
 */
export function displayPath(ctx: ToolContext, abs: string): string {
  const primary = ctx.policy.roots[0];
  if (primary === undefined || !isInside(abs, [primary])) return abs;
  return posix.relative(primary, abs) || ".";
}

/**
 * Find the repository for a call, and its filter drivers. Git looks from
 * the path's directory (then the path itself, for a repository's own top
 * named inside a root that is not one, then the path's root).
 *
 * @param ctx The call's context.
 * @param tool The tool (for the subprocess log).
 * @param raw The path the model gave, or `undefined` for the primary root.
 * @returns The repository and the pathspec.
 * @throws {ToolError} `path_denied` (outside the roots, or a repository whose top is),
 *   `not_found` (no repository there), and git's own failures.
 */
export async function openRepo(
  ctx: ToolContext,
  tool: string,
  raw: string | undefined,
): Promise<GitTarget> {
  const path = raw === undefined ? undefined : checkPath(ctx, raw);
  const abs = path?.abs ?? ctx.policy.roots[0];
  if (abs === undefined) throw new ToolError("path_denied", "There is no root to run git in");
  const root = path?.root ?? abs;
  const found = await findTop(ctx, tool, candidates(abs, root));
  if (found === undefined) {
    throw new ToolError(
      "not_found",
      `${JSON.stringify(displayPath(ctx, abs))} is not inside a git repository`,
    );
  }
  if (!ctx.policy.roots.some((r) => isInside(found.top, [r]))) {
    throw new ToolError("path_denied", `The repository at "${found.top}" is outside the roots`);
  }
  if (!isInside(abs, [found.top])) {
    // Git found it through a symbolic link: name the path inside the repository instead.
    throw new ToolError(
      "invalid_path",
      `${
        JSON.stringify(displayPath(ctx, abs))
      } leads into the repository at "${found.top}" through a symbolic link: give its path there`,
    );
  }
  const spec = posix.relative(found.top, abs) || ".";
  const overrides = await filterOverrides(ctx, tool, found.top);
  return {
    top: found.top,
    spec,
    display: displayPath(ctx, abs),
    hasHead: found.hasHead,
    overrides,
  };
}

/** The directories to look for a repository from, in order, inside the root. */
function candidates(abs: string, root: string): string[] {
  const list = abs === root ? [abs] : [posix.dirname(abs), abs, root];
  return [...new Set(list)];
}

/** The first candidate git finds a repository from: its top, and whether HEAD is a commit. */
async function findTop(
  ctx: ToolContext,
  tool: string,
  dirs: readonly string[],
): Promise<{ top: string; hasHead: boolean } | undefined> {
  for (const cwd of dirs) {
    let result;
    try {
      result = await runGit(ctx, {
        args: ["rev-parse", "--show-toplevel", "--verify", "-q", "HEAD"],
        cwd,
        tool,
        okCodes: [0, 1, 128],
      });
    } catch (error) {
      // A directory that does not exist (a deleted file's): look from the next one.
      if (error instanceof ToolError && error.code === "not_found") continue;
      throw error;
    }
    if (result.exitCode === 128) {
      if (/not a git repository/i.test(result.stderr)) continue;
      throw gitFailure("git rev-parse", result);
    }
    const [top] = result.stdout.split("\n");
    if (!top?.startsWith("/")) throw gitFailure("git rev-parse", result);
    return { top, hasHead: result.exitCode === 0 };
  }
  return undefined;
}

/**
 * The repository's filter drivers (`filter.<driver>.clean|smudge|process|required`,
 * from its config and every file it includes), each overridden with an
 * empty value: an empty command runs nothing, an empty `required` is false.
 * Reading config runs nothing.
 *
 * @param ctx The call's context.
 * @param tool The tool.
 * @param top The repository's top.
 * @returns The overrides.
 */
export async function filterOverrides(
  ctx: ToolContext,
  tool: string,
  top: string,
): Promise<ConfigEntry[]> {
  const result = await runGit(ctx, {
    args: ["config", "-z", "--get-regexp", "^filter\\."],
    cwd: top,
    tool,
    okCodes: [0, 1],
  });
  return parseConfigKeys(result.stdout).map((key) => [key, ""] as const);
}

/**
 * The keys of `git config -z` output (`key\nvalue\0`, or `key\0` for a key
 * without a value), each once.
 *
 * @param output The output.
 * @returns The keys, in order.
 */
export function parseConfigKeys(output: string): string[] {
  const keys = output.split("\0")
    .filter((entry) => entry !== "")
    .map((entry) => entry.split("\n", 1)[0]!);
  return [...new Set(keys)];
}
