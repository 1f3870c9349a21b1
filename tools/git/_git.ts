/**
 * Running git for the read-only git tools: always through the sandbox
 * (`access: "read"`, the roots mounted read-only), with every repository
 * setting that makes git start a program neutralized. A repository's own
 * `.git/config` is the project's, so it is treated as hostile: the
 * overrides below are on the command line (which wins over every config
 * file) and git's own system and global files are not read at all.
 *
 * @module
 */

import { sandboxOf, type SandboxResult } from "../sandbox.ts";
import { type ToolContext, ToolError } from "../tool.ts";
import { GIT_TIMEOUT_MS } from "./family.ts";

/** The most bytes of git's output a tool reads; more is refused with a hint to narrow. */
export const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;

/** One config entry given on the command line. */
export type ConfigEntry = readonly [key: string, value: string];

/**
 * Settings that make git run a program on a read command, or show a
 * signature through one, set to what runs nothing (passed as `-c`):
 * the fsmonitor hook (or daemon), hooks (`post-index-change` when the
 * index is refreshed), pagers, external diff drivers, credential helpers,
 * gpg for signatures, and the submodule handling that starts a child git
 * in a submodule, where none of these overrides reach.
 */
export const SAFE_CONFIG: readonly ConfigEntry[] = Object.freeze(
  [
    ["core.fsmonitor", "false"],
    ["core.hooksPath", "/dev/null"],
    ["core.pager", "cat"],
    ["core.sshCommand", "false"],
    ["core.askPass", ""],
    ["core.untrackedCache", "false"],
    ["credential.helper", ""],
    ["diff.external", ""],
    ["diff.submodule", "short"],
    ["diff.ignoreSubmodules", "dirty"],
    ["status.submoduleSummary", "false"],
    ["submodule.recurse", "false"],
    ["gpg.program", "false"],
    ["gpg.openpgp.program", "false"],
    ["gpg.ssh.program", "false"],
    ["gpg.x509.program", "false"],
    ["log.showSignature", "false"],
    ["protocol.allow", "never"],
    ["gc.auto", "0"],
    ["maintenance.auto", "false"],
    ["safe.directory", "*"],
  ] as const,
);

/** Settings that would change the output the tools parse. */
export const OUTPUT_CONFIG: readonly ConfigEntry[] = Object.freeze(
  [
    ["color.ui", "false"],
    ["core.quotePath", "false"],
    ["diff.noprefix", "false"],
    ["diff.mnemonicPrefix", "false"],
    ["diff.relative", "false"],
  ] as const,
);

/**
 * The environment git runs with: no system or global config, no prompt,
 * no optional index writes, no pager, no external diff, no askpass, no
 * transport at all (a partial clone's lazy fetch would run the remote's
 * `uploadpack` command: `GIT_ALLOW_PROTOCOL` lists no protocol), and
 * English messages (the tools read some of git's errors).
 */
export const GIT_ENV: Readonly<Record<string, string>> = Object.freeze({
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EXTERNAL_DIFF: "",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  // A list of empty names: no protocol is allowed (an empty value could be dropped on the way).
  GIT_ALLOW_PROTOCOL: ":",
  // git 2.44 and later: never fetch a missing object of a partial clone.
  GIT_NO_LAZY_FETCH: "1",
  LC_ALL: "C",
});

/** One git command to run. */
export interface GitCommand {
  /** The arguments after `git` and the global options. */
  readonly args: readonly string[];
  /** Where it runs (absolute, inside a root). */
  readonly cwd: string;
  /** The tool that runs it (for the session's subprocess log). */
  readonly tool: string;
  /** More config to override, from the repository's own (its filter drivers). */
  readonly overrides?: readonly ConfigEntry[];
  /** Exit codes that are not a failure (default: 0 only). */
  readonly okCodes?: readonly number[];
  /**
   * Its pathspecs carry their own magic (`:(literal)…`, `:(exclude,literal)…`,
   * `_hidden.ts`): git is not told to take every pathspec literally.
   */
  readonly magicPathspecs?: boolean;
}

/**
 * The full argv of a git command: the global options that turn off the
 * pager and pathspec magic (unless the command's pathspecs carry their
 * own), and every `-c` override, before the command's own arguments.
 *
 * @param args The arguments after `git` and the global options.
 * @param options `magicPathspecs`: every pathspec in `args` says its own magic.
 * @returns The argv, `git` first.
 */
export function gitArgv(
  args: readonly string[],
  options: { magicPathspecs?: boolean | undefined } = {},
): string[] {
  const config = [...SAFE_CONFIG, ...OUTPUT_CONFIG].flatMap(([key, value]) => [
    "-c",
    `${key}=${value}`,
  ]);
  const literal = options.magicPathspecs ? [] : ["--literal-pathspecs"];
  return ["git", "--no-pager", ...literal, ...config, ...args];
}

/**
 * The environment of a git command: {@linkcode GIT_ENV} and the extra
 * overrides as `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (a key is kept
 * whole there; `-c` would split a driver name holding `=`).
 *
 * @param overrides Config entries to override.
 * @returns The variables to add to the sandbox's environment.
 */
export function gitEnv(overrides: readonly ConfigEntry[] = []): Record<string, string> {
  const env: Record<string, string> = { ...GIT_ENV };
  if (overrides.length === 0) return env;
  env.GIT_CONFIG_COUNT = String(overrides.length);
  overrides.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * Run one git command in the sandbox, read-only.
 *
 * @param ctx The call's context (its sandbox and signal).
 * @param command What to run and where.
 * @returns What git did, when it exited with an accepted code.
 * @throws {ToolError} `timeout`, `cancelled`, `too_large` (more output than is read),
 *   or what {@linkcode gitFailure} makes of git's error; the sandbox's own errors.
 */
export async function runGit(ctx: ToolContext, command: GitCommand): Promise<SandboxResult> {
  const result = await sandboxOf(ctx).run({
    argv: gitArgv(command.args, { magicPathspecs: command.magicPathspecs }),
    cwd: command.cwd,
    access: "read",
    timeoutMs: GIT_TIMEOUT_MS,
    signal: ctx.signal,
    tool: command.tool,
    env: gitEnv(command.overrides),
    maxOutputBytes: MAX_GIT_OUTPUT_BYTES,
  });
  const what = `git ${command.args[0] ?? ""}`.trim();
  if (result.timedOut) {
    throw new ToolError("timeout", `${what} ran past its ${GIT_TIMEOUT_MS / 1000} s limit`);
  }
  if (result.cancelled) throw new ToolError("cancelled", `${what} was cancelled`);
  if (result.limited !== null) {
    throw new ToolError("git_error", `${what} was stopped by the sandbox: ${result.limited}`);
  }
  if (result.stdoutBytes > MAX_GIT_OUTPUT_BYTES) {
    throw new ToolError(
      "too_large",
      `Cannot read ${what}: it wrote ${result.stdoutBytes} bytes, the limit is ${MAX_GIT_OUTPUT_BYTES}; give a narrower path or revisions`,
    );
  }
  if (!(command.okCodes ?? [0]).includes(result.exitCode ?? -1)) {
    throw gitFailure(what, result);
  }
  return result;
}

/**
 * The error a model sees for a git command that failed: a bad revision is
 * `invalid_argument`, a missing path or repository `not_found`, anything
 * else `git_error`, each with git's own first lines.
 *
 * @param what The command, as `git <subcommand>`.
 * @param result What it did.
 * @returns The error.
 */
export function gitFailure(what: string, result: SandboxResult): ToolError {
  const said = cleanLines(result.stderr, 6).join("; ") ||
    `exit code ${result.exitCode ?? result.signal}`;
  if (/not a git repository/i.test(said)) {
    return new ToolError("not_found", `${what} found no repository: ${said}`);
  }
  if (
    /unknown revision|bad revision|ambiguous argument|invalid object name|bad object|not a valid object name|needed a single revision|does not have any commits yet|has only \d+ lines?/i
      .test(said)
  ) {
    // Git's advice on `--` that follows is about its command line, not the model's call.
    return new ToolError("invalid_argument", `${what} failed: ${said.split("; ")[0]}`);
  }
  if (
    /does not exist in|exists on disk, but not in|no such path|did not match any file/i.test(said)
  ) {
    return new ToolError("not_found", `${what} failed: ${said}`);
  }
  return new ToolError("git_error", `${what} failed: ${said}`);
}

/**
 * The first non-empty lines of some program output, without control
 * characters, each cut to 300 characters.
 *
 * @param text The output.
 * @param max The most lines.
 * @returns The lines.
 */
export function cleanLines(text: string, max: number): string[] {
  return text.split("\n")
    .map((line) => sanitize(line).trim())
    .filter((line) => line !== "" && !/^hint: /.test(line))
    .slice(0, max)
    .map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line));
}

/**
 * A text with its control characters (but tabs) replaced by `?`, for a
 * field git took from the repository (an author, a subject).
 *
 * @param text The text.
 * @returns The same text, one line, printable.
 */
export function sanitize(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, "?");
}

/** The longest revision the tools accept. */
const MAX_REV_LENGTH = 256;

/**
 * Check a revision the model gave, so that git can never take it for an
 * option or a path: no leading `-`, no control character, no `:` (a
 * `rev:path` would read a file past the path checks: give the path as
 * `path`), at most 256 characters.
 *
 * @param name The argument's name, for the error.
 * @param rev The revision (`HEAD~2`, `main`, `v1.0`, `a1b2c3d`, `main..topic` for a log).
 * @returns The same revision.
 * @throws {ToolError} `invalid_argument` when it is not acceptable.
 */
export function checkRev(name: string, rev: string): string {
  const refuse = (why: string) =>
    new ToolError("invalid_argument", `Cannot use ${name} ${JSON.stringify(rev)}: ${why}`);
  if (rev.trim() === "" || rev.trim() !== rev) {
    throw refuse("give a revision without spaces around it");
  }
  if (rev.length > MAX_REV_LENGTH) throw refuse(`longer than ${MAX_REV_LENGTH} characters`);
  if (rev.startsWith("-")) throw refuse("a revision cannot start with '-'");
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(rev)) throw refuse("it contains a control character");
  if (rev.includes(":")) throw refuse("give the file as `path`, not as `rev:path`");
  return rev;
}
