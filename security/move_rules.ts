/**
 * What the place of a moved directory decides, before the names it holds are
 * judged one by one (`safe_move.ts`): a directory that is or holds a root or
 * the host's state directory, or holds a file protected by path, may not
 * move; nor may one go where it would hold such a file, or where what it
 * holds would become a protected path, now or later (`x` to `.hg`, where
 * `hgrc` is protected).
 *
 * @module
 */

import { ToolError } from "./errors.ts";
import { leadingPartMatcher } from "./glob.ts";
import type { Policy } from "./policy.ts";
import type { ProtectedRule } from "./protected.ts";

/** A protected glob, with a test of whether a directory leads to what it protects. */
export type LeadingRule = { glob: string; why: string; test: (dir: string) => boolean };

/** What the check asks of the resolver (`Resolver` has it all). */
export interface MoveJudge {
  /** The roots, the state directory and the files protected by path. */
  readonly policy: Pick<Policy, "roots" | "stateDir" | "protectedFiles">;
  /** How to name a real path to the model. */
  display(path: string): string;
  /** The root holding a real path, and the path relative to it. */
  locate(path: string): { root: string; relative: string } | undefined;
}

/**
 * The protected globs, each with a test of the directories that lead to it.
 *
 * @param rules The protected globs in force.
 * @returns One leading rule a glob.
 */
export function leadingRules(rules: readonly ProtectedRule[]): LeadingRule[] {
  return rules.map((rule) => ({
    ...rule,
    test: leadingPartMatcher(rule.glob, true),
  }));
}

/**
 * Refuse to move a directory where its place, not its names, decides.
 *
 * @param judge The resolver.
 * @param move The model's paths (for the messages), the directory's real
 *   path and its new one, and the leading rules of the protected globs.
 * @throws {ToolError} `path_denied` or `protected_path`.
 */
export function refuseDirectoryPlace(
  judge: MoveJudge,
  move: {
    raws: { source: string; destination: string };
    source: string;
    destination: string;
    leading: readonly LeadingRule[];
  },
): void {
  const { raws, source, destination, leading } = move;
  const holds = (dir: string, path: string) => path === dir || path.startsWith(`${dir}/`);
  const from = JSON.stringify(raws.source);
  if (holds(source, judge.policy.stateDir)) {
    throw new ToolError(
      "path_denied",
      `Cannot move ${from}: it holds the host's state directory`,
    );
  }
  const root = judge.policy.roots.find((each) => holds(source, each));
  if (root !== undefined) {
    throw new ToolError("path_denied", `Cannot move ${from}: it holds the root "${root}"`);
  }
  const to = JSON.stringify(raws.destination);
  for (const file of judge.policy.protectedFiles) {
    if (holds(source, file.path)) {
      throw new ToolError(
        "protected_path",
        `${from} is protected: it holds "${
          judge.display(file.path)
        }" (${file.why}); move what is around it instead`,
      );
    }
    if (holds(destination, file.path)) {
      throw new ToolError(
        "protected_path",
        `${to} is protected: a directory moved there would hold "${
          judge.display(file.path)
        }" (${file.why})`,
      );
    }
  }
  const where = judge.locate(destination);
  const rule = where && leading.find((each) => each.test(where.relative));
  if (rule) {
    throw new ToolError(
      "protected_path",
      `${to} is protected: what a directory moved there holds would be protected (${rule.glob}: ${rule.why}); move it elsewhere`,
    );
  }
}
