/**
 * Paths the host hides (blacklisted and secret names, its state directory)
 * that a repository tracks. In the sandbox git sees an empty file
 * (`/dev/null`) or an empty directory in their place: it would call such a
 * file modified, cannot hash it for a diff (`unsupported file type`), and
 * would show a hidden file's committed content in a commit's diff. The git
 * tools leave these paths out of what they show, and say so.
 *
 * @module
 */

import { posix } from "node:path";
import { Resolver } from "../../security/resolver.ts";
import type { ToolContext } from "../tool.ts";
import { runGit } from "./_git.ts";
import type { GitTarget } from "./_repo.ts";

/** The most hidden paths a note names (the count is always whole). */
const NAMED = 5;

/**
 * Whether the host hides a path the model is shown.
 *
 * @param ctx The call's context (its policy).
 * @param shown A path as the git tools name it: relative to the primary root, or absolute.
 * @returns True when it is hidden.
 */
export function isHidden(ctx: ToolContext, shown: string): boolean {
  const abs = posix.resolve(ctx.policy.roots[0] ?? "/", shown.replace(/\/+$/, ""));
  return resolverOf(ctx).hidden(abs) !== undefined;
}

/**
 * The paths a diff-like command would show that the host hides: git lists
 * the names (no content is read, so nothing is hashed), and each is judged
 * by the policy.
 *
 * @param ctx The call's context.
 * @param target The repository.
 * @param tool The tool (for the subprocess log).
 * @param args The command listing names (`--name-only -z --no-renames`), without pathspecs.
 * @param spec The pathspec the command is limited to (the target's by default; `.`: all of it).
 * @returns How many paths it lists, and those hidden, relative to the repository's top.
 * @throws {ToolError} What {@linkcode runGit} throws.
 */
export async function hiddenNames(
  ctx: ToolContext,
  target: GitTarget,
  tool: string,
  args: readonly string[],
  spec: string = target.spec,
): Promise<{ count: number; hidden: string[] }> {
  const result = await runGit(ctx, {
    args: [...args, "--", spec],
    cwd: target.top,
    tool,
    overrides: target.overrides,
  });
  const names = result.stdout.split("\0").map((name) => name.replace(/^\n+/, ""))
    .filter((name) => name !== "");
  const unique = [...new Set(names)];
  const hidden = unique.filter((name) =>
    resolverOf(ctx).hidden(posix.join(target.top, name)) !== undefined
  );
  return { count: unique.length, hidden };
}

/**
 * A pathspec without some of its paths, each with its own magic (run the
 * command with `magicPathspecs`): the pathspec literally, and each path
 * excluded literally.
 *
 * @param spec The pathspec, relative to the repository's top (where git runs).
 * @param hidden Paths to leave out, relative to the repository's top.
 * @returns The pathspecs, to put after `--`.
 */
export function pathspecsWithout(spec: string, hidden: readonly string[]): string[] {
  return [`:(literal)${spec}`, ...hidden.map((path) => `:(top,exclude,literal)${path}`)];
}

/**
 * The note that says which paths were left out.
 *
 * @param shown The paths left out, as the model is shown paths.
 * @returns E.g. `[1 path the host hides left out: history.toml]`.
 */
export function hiddenNote(shown: readonly string[]): string {
  const named = shown.slice(0, NAMED).join(", ") + (shown.length > NAMED ? ", …" : "");
  const count = `${shown.length} path${shown.length === 1 ? "" : "s"}`;
  return `[${count} the host hides left out: ${named}]`;
}

/** The resolver the git tools judge paths with (one per worker). */
function resolverOf(ctx: ToolContext): Resolver {
  return ctx.shared("git.resolver", () => new Resolver(ctx.policy));
}
