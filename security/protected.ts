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

import { globToRegExp } from "./glob.ts";

/** One protected glob and why it is protected. */
export interface ProtectedRule {
  /** A glob over a path relative to its root, matched at any depth. */
  readonly glob: string;
  /** Why, in a few words (the error says it). */
  readonly why: string;
}

/** One protected file or directory by its absolute path (a config file inside a root). */
export interface ProtectedFile {
  /** Its real absolute path; a directory protects everything beneath it. */
  readonly path: string;
  /** Why, in a few words. */
  readonly why: string;
}

const SHELL = "shells run it when they start";

/**
 * The fixed list. Each entry is something another program executes, or
 * takes orders from, without the user asking for that file: an agent that
 * could write one could run code outside every boundary later.
 */
export const PROTECTED_PATHS: readonly ProtectedRule[] = Object.freeze([
  { glob: "toolhost.json", why: "toolhost's own configuration (it starts the servers it names)" },
  { glob: ".toolhost/**", why: "toolhost's own state" },
  { glob: ".mcp.json", why: "MCP clients and this host start the servers it lists" },
  { glob: ".git", why: "git follows a .git file or directory to hooks and config" },
  { glob: ".git/hooks/**", why: "git runs its hooks" },
  {
    glob: ".git/config",
    why: "git runs the commands its config names (core.fsmonitor, core.sshCommand, aliases)",
  },
  { glob: ".git/config.worktree", why: "git runs the commands its config names" },
  { glob: ".git/modules/**", why: "submodules' git directories: git runs their hooks and config" },
  {
    glob: ".git/worktrees/**",
    why: "linked worktrees' git directories: they point git at a config and hooks",
  },
  { glob: ".githooks/**", why: "git runs the hooks there when core.hooksPath names it" },
  { glob: ".gitmodules", why: "git fetches and checks out what it names" },
  { glob: ".gitconfig", why: "git runs the commands its config names" },
  { glob: ".config/git/**", why: "git runs the commands its config names" },
  { glob: ".vscode/**", why: "VS Code runs its tasks and applies its settings" },
  { glob: ".idea/**", why: "JetBrains IDEs run its run configurations and apply its settings" },
  { glob: ".claude/**", why: "Claude Code runs the hooks and MCP servers its settings name" },
  { glob: ".cursor/**", why: "Cursor runs the MCP servers and hooks it names" },
  { glob: ".devcontainer/**", why: "dev containers run its lifecycle commands" },
  { glob: ".envrc", why: "direnv runs it on entering the directory" },
  { glob: ".bashrc", why: SHELL },
  { glob: ".bash_profile", why: SHELL },
  { glob: ".bash_login", why: SHELL },
  { glob: ".bash_logout", why: SHELL },
  { glob: ".bash_aliases", why: SHELL },
  { glob: ".profile", why: SHELL },
  { glob: ".zshrc", why: SHELL },
  { glob: ".zshenv", why: SHELL },
  { glob: ".zprofile", why: SHELL },
  { glob: ".zlogin", why: SHELL },
  { glob: ".ripgreprc", why: "ripgrep takes its options from it" },
  { glob: ".npmrc", why: "npm loads it on every command (script-shell, node-options run code)" },
  { glob: ".yarnrc", why: "yarn loads it on every command" },
  { glob: ".yarnrc.yml", why: "yarn loads it on every command (yarnPath runs a file)" },
  { glob: ".pre-commit-config.yaml", why: "pre-commit runs the hooks it names on git commit" },
  { glob: ".husky/**", why: "husky's git hooks run on git commands" },
  { glob: ".hg/hgrc", why: "Mercurial runs the hooks it names" },
  { glob: ".ssh/**", why: "ssh runs ProxyCommand from its config and trusts its keys" },
].map((rule) => Object.freeze(rule)));

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
  const compiled = rules.map((rule) => ({ re: protectedRegExp(rule.glob), why: rule.why }));
  return {
    why(path, relative) {
      for (const file of files) {
        if (path === file.path || path.startsWith(`${file.path}/`)) return file.why;
      }
      if (relative === undefined || relative === "") return undefined;
      return compiled.find((rule) => rule.re.test(relative))?.why;
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
