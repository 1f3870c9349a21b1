/**
 * Protected paths: files that other programs run or trust without asking —
 * the host's own configuration, MCP server lists, git hooks and config,
 * editor task files, shell start-up files. No tool may create, write, edit,
 * move onto, move away or delete them (nor move a directory holding one),
 * whatever a file inside a root says; reading them stays allowed. Only the
 * user lifts an entry, from outside the roots (`--unprotect`, or a config
 * file outside every root).
 *
 * A glob here matches at any depth (`.git/config` protects `sub/.git/config`
 * too) and case-insensitively (a case-insensitive file system would open
 * `.GIT/config` for `.git/config`); `X/**` protects `X` itself and all
 * beneath it.
 *
 * @module
 */

import { GIT_DIRECTORY_WHY, gitDirectoryWhy } from "./git_dir.ts";
import { globToRegExp } from "./glob.ts";

/** One protected glob and why it is protected. */
export interface ProtectedRule {
  /** A glob over a path relative to its root, matched at any depth. */
  readonly glob: string;
  /** Why, in a few words (the error says it). */
  readonly why: string;
  /**
   * `git`: the rule is every git directory, by allowlist (`git_dir.ts`):
   * what git writes to record work there is not protected.
   */
  readonly allow?: "git";
}

/**
 * Every git directory in a root, and the `.git` entry itself (a file or a
 * directory), by allowlist: only what git writes to record work may be
 * written inside (`git_dir.ts`).
 */
export const GIT_DIRECTORY_RULE: ProtectedRule = Object.freeze({
  glob: ".git/**",
  why: GIT_DIRECTORY_WHY,
  allow: "git",
});

/** One protected file or directory by its absolute path (a config file inside a root). */
export interface ProtectedFile {
  /** Its real absolute path; a directory protects everything beneath it. */
  readonly path: string;
  /** Why, in a few words. */
  readonly why: string;
}

const SHELL = "shells run it when they start";
const GIT_CONFIG = "git runs the commands its config names";

/**
 * Protected rules, frozen, for globs that share one reason.
 *
 * @param why The reason, in a few words.
 * @param globs The globs it covers.
 * @returns One rule per glob, in order.
 */
function because(why: string, ...globs: string[]): ProtectedRule[] {
  return globs.map((glob) => Object.freeze({ glob, why }));
}

/**
 * The fixed list. Each entry is something another program executes, or
 * takes orders from, without the user asking for that file: an agent that
 * could write one could run code outside every boundary later. The order
 * stays as it is: errors list the globs in it.
 */
export const PROTECTED_PATHS: readonly ProtectedRule[] = Object.freeze([
  ...because("toolhost's own configuration (it starts the servers it names)", "toolhost.json"),
  ...because("toolhost's own state", ".toolhost/**"),
  ...because("MCP clients and this host start the servers it lists", ".mcp.json"),
  GIT_DIRECTORY_RULE,
  ...because("git runs the hooks there when core.hooksPath names it", ".githooks/**"),
  ...because("git fetches and checks out what it names", ".gitmodules"),
  ...because(GIT_CONFIG, ".gitconfig", ".config/git/**"),
  ...because("VS Code runs its tasks and applies its settings", ".vscode/**"),
  ...because("JetBrains IDEs run its run configurations and apply its settings", ".idea/**"),
  ...because("Claude Code runs the hooks and MCP servers its settings name", ".claude/**"),
  ...because("Cursor runs the MCP servers and hooks it names", ".cursor/**"),
  ...because("dev containers run its lifecycle commands", ".devcontainer/**"),
  ...because("direnv runs it on entering the directory", ".envrc"),
  ...because(SHELL, ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases"),
  ...because(SHELL, ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin"),
  ...because("ripgrep takes its options from it", ".ripgreprc"),
  ...because("npm loads it on every command (script-shell, node-options run code)", ".npmrc"),
  ...because("yarn loads it on every command", ".yarnrc"),
  ...because("yarn loads it on every command (yarnPath runs a file)", ".yarnrc.yml"),
  ...because("pre-commit runs the hooks it names on git commit", ".pre-commit-config.yaml"),
  ...because("husky's git hooks run on git commands", ".husky/**"),
  ...because("Mercurial runs the hooks it names", ".hg/hgrc"),
  ...because("ssh runs ProxyCommand from its config and trusts its keys", ".ssh/**"),
]);

/** Compiled protection: says why a path is protected. */
export interface Protection {
  /**
   * Why a real absolute path is protected, or `undefined` when it is not.
   *
   * @param path A real absolute path.
   * @param relative The same path relative to its root ("" for the root), or
   *   `undefined` when it is in no root (only exact files are then checked).
   * @returns The reason.
   */
  why(path: string, relative: string | undefined): string | undefined;
}

/**
 * Compile protected globs and files.
 *
 * @param rules Globs matched at any depth, case-insensitively.
 * @param files Exact files and directories (everything beneath a directory too).
 * @returns The compiled protection.
 * @throws {SyntaxError} When a glob does not compile.
 */
export function compileProtection(
  rules: readonly ProtectedRule[],
  files: readonly ProtectedFile[] = [],
): Protection {
  const git = rules.some((rule) => rule.allow === "git");
  const compiled = rules.filter((rule) => rule.allow === undefined)
    .map((rule) => ({ re: protectedRegExp(rule.glob), why: rule.why }));
  return {
    why(path, relative) {
      for (const file of files) {
        if (path === file.path || path.startsWith(`${file.path}/`)) return file.why;
      }
      if (relative === undefined || relative === "") return undefined;
      return (git ? gitDirectoryWhy(relative) : undefined) ??
        compiled.find((rule) => rule.re.test(relative))?.why;
    },
  };
}

/**
 * A protected glob as a regular expression over a root-relative path: at any
 * depth, case-insensitive, and `X/**` matching `X` itself.
 *
 * @param glob The glob.
 * @returns The expression.
 * @throws {SyntaxError} When the glob does not compile.
 */
export function protectedRegExp(glob: string): RegExp {
  const trimmed = glob.replace(/^\/+|\/+$/g, "");
  const dir = trimmed.endsWith("/**") ? trimmed.slice(0, -3) : undefined;
  const body = globToRegExp(dir ?? trimmed).source.slice(1, -1);
  return new RegExp(`^(?:.*/)?${body}${dir === undefined ? "" : "(?:/.*)?"}$`, "iu");
}
