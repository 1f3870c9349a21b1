/**
 * The ripgrep fast path of `search_files` and `grep`. ripgrep only proposes
 * candidates: its ignore rules are set to equal the walker's, every path it
 * prints goes through the resolver (containment and blacklist) and the
 * tools' own glob, and `grep` re-reads each candidate file through
 * `ctx.fs.readMany` (anchored) and matches it with its own (linear-time)
 * engine, which alone decides. Patterns are translated (`_rust_regex.ts`)
 * so that ripgrep finds a superset of what that engine finds. Where its
 * rules cannot equal the walker's (a `.gitignore` above the start
 * directory, a blacklisted `.gitignore`), or ripgrep fails, the tools fall
 * back to the walker.
 *
 * @module
 */

import type { ResolvedPath } from "../../security/resolver.ts";
import { globToRegExp } from "../../security/glob.ts";
import { processReportOf } from "../sessions.ts";
import type { ToolContext } from "../tool.ts";

/** Which entries a walk keeps, as the tools' flags set it. */
export interface WalkRules {
  /** Honour `.gitignore` files. */
  gitignore: boolean;
  /** Skip `.git` and `node_modules`. */
  skipDefaults: boolean;
}

/** What `grep` asks ripgrep for. */
export interface RgSearch {
  /** The pattern in ripgrep's dialect (see `toRustRegex` in `_rust_regex.ts`). */
  regex: string;
  /** Case-insensitive. */
  ignoreCase: boolean;
  /** A file-name glob (no `/`) to narrow the files, or undefined. */
  nameGlob: string | undefined;
}

/** What `rg --files-with-matches` found: the candidates, and what it could not read. */
export interface RgMatches {
  /** Files where the pattern may match, relative to the start. Unsorted. */
  paths: string[];
  /** Files and directories ripgrep could not read, relative to the start, and why. */
  unreadable: Array<{ path: string; reason: string }>;
}

/**
 * The ripgrep binary to use for a walk from `start`, or `undefined` when the
 * walker must do it (no ripgrep, or rules ripgrep cannot reproduce).
 *
 * @param ctx The tool context.
 * @param start The checked start directory.
 * @param rules The walk's rules.
 * @returns The absolute path of ripgrep, or undefined.
 */
export function usableRipgrep(
  ctx: ToolContext,
  start: ResolvedPath,
  rules: WalkRules,
): string | undefined {
  const rg = ctx.binaries.ripgrep;
  if (rg === undefined || !start.info?.isDirectory) return undefined;
  if (!rules.gitignore) return rg;
  // A hidden .gitignore is not applied by the walker; ripgrep would apply it.
  for (const glob of ctx.policy.blacklist) {
    const last = glob.replace(/\/+$/, "").split("/").pop() ?? "";
    try {
      if (globToRegExp(last).test(".gitignore")) return undefined;
    } catch {
      // Whether this glob hides .gitignore cannot be told: the walker (always right, only
      // slower) does the walk instead, so dropping the error loses nothing.
      return undefined;
    }
  }
  // The .gitignore files above the start apply to the walker, not to ripgrep.
  if (start.relative !== "") {
    const parts = start.relative.split("/");
    let dir = start.root;
    const names = [dir];
    for (const part of parts.slice(0, -1)) names.push(dir = `${dir}/${part}`);
    for (const each of names) {
      const found = ctx.fs.list(each).some((entry) => entry.name === ".gitignore");
      if (found) return undefined;
    }
  }
  return rg;
}

/**
 * List the files under `start` with `rg --files`, as paths relative to
 * `start`, keeping only those inside the roots and not blacklisted. Unsorted.
 *
 * @param ctx The tool context.
 * @param rg The ripgrep binary.
 * @param start The checked start directory.
 * @param rules The walk's rules.
 * @param keep A cheap filter applied first (the tool's glob).
 * @returns The relative paths, or undefined when ripgrep failed (use the walker).
 */
export async function rgFiles(
  ctx: ToolContext,
  rg: string,
  start: ResolvedPath,
  rules: WalkRules,
  keep?: (relative: string) => boolean,
): Promise<string[] | undefined> {
  const args = ["--files", "--no-messages", ...walkArgs(rules)];
  return (await runListing(ctx, rg, start, args, keep))?.paths;
}

/**
 * The files under `start` where ripgrep finds the pattern (a superset of
 * where grep's own pattern matches), relative to `start`, and those it could
 * not read. Files of any size are searched (ripgrep streams them), so that a
 * match in a file too large for grep is found and can be said.
 *
 * @param ctx The tool context.
 * @param rg The ripgrep binary.
 * @param start The checked start directory.
 * @param rules The walk's rules.
 * @param search The pattern.
 * @returns The candidates and the unreadable, or undefined when ripgrep failed (use the walker).
 */
export async function rgFilesWithMatches(
  ctx: ToolContext,
  rg: string,
  start: ResolvedPath,
  rules: WalkRules,
  search: RgSearch,
): Promise<RgMatches | undefined> {
  const args = ["--files-with-matches", "--text"];
  if (search.ignoreCase) args.push("--ignore-case");
  else args.push("--case-sensitive");
  if (search.nameGlob !== undefined) {
    args.push(`--type-add=toolhostsel:${search.nameGlob}`, "--type=toolhostsel");
  }
  args.push(...walkArgs(rules), `--regexp=${search.regex}`);
  return await runListing(ctx, rg, start, args);
}

function walkArgs(rules: WalkRules): string[] {
  const args = [
    "--no-config",
    "--hidden",
    "--no-follow",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-ignore-dot",
    "--no-require-git",
    "--null",
    "--color=never",
  ];
  if (!rules.gitignore) args.push("--no-ignore-vcs");
  if (rules.skipDefaults) args.push("--glob=!.git", "--glob=!node_modules");
  return args;
}

async function runListing(
  ctx: ToolContext,
  rg: string,
  start: ResolvedPath,
  args: string[],
  keep?: (relative: string) => boolean,
): Promise<RgMatches | undefined> {
  const output = await runRipgrep(ctx, rg, start, args);
  if (output === undefined) return undefined;
  ctx.signal.throwIfAborted();
  const stderr = new TextDecoder().decode(output.stderr);
  const errors = stderr.split("\n").filter((line) => line !== "");
  const unreadable = errors.map(unreadableEntry);
  // Exit code 2 with per-file errors only: the rest of the tree was searched.
  const onlyFiles = output.code === 2 && unreadable.every((entry) => entry !== undefined);
  if (output.code !== 0 && output.code !== 1 && !onlyFiles && output.stdout.length === 0) {
    ctx.logger.warn(`ripgrep exited with ${output.code}; using the walker`, stderr.slice(0, 2000));
    return undefined;
  }
  const paths: string[] = [];
  for (const path of new TextDecoder().decode(output.stdout).split("\0")) {
    const relative = visibleBelow(ctx, start, path);
    if (relative === undefined || (keep !== undefined && !keep(relative))) continue;
    paths.push(relative);
  }
  const failed: RgMatches["unreadable"] = [];
  for (const entry of unreadable) {
    const relative = entry && visibleBelow(ctx, start, entry.path);
    if (relative !== undefined) failed.push({ path: relative, reason: entry!.reason });
  }
  return { paths, unreadable: failed };
}

/**
 * Run ripgrep in `start`; undefined (logged) when it cannot run. Each run is
 * reported to the session's subprocess log.
 */
async function runRipgrep(
  ctx: ToolContext,
  rg: string,
  start: ResolvedPath,
  args: string[],
): Promise<Deno.CommandOutput | undefined> {
  ctx.signal.throwIfAborted();
  const argv = [rg, ...args, "--", start.path];
  const started = performance.now();
  let output: Deno.CommandOutput | undefined;
  let spawned = false;
  try {
    // stdin is a closed pipe, not /dev/null: the confined worker may not open /dev/null.
    const child = new Deno.Command(rg, {
      args: argv.slice(1),
      cwd: start.path,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: ctx.signal,
    }).spawn();
    spawned = true;
    await child.stdin.close();
    output = await child.output();
    return output;
  } catch (error) {
    ctx.signal.throwIfAborted();
    ctx.logger.warn("ripgrep could not run; using the walker", error);
    return undefined;
  } finally {
    if (spawned) reportRun(ctx, { argv, cwd: start.path, ms: performance.now() - started }, output);
  }
}

/** The bytes of ripgrep's output kept in its record. */
const HEAD_BYTES = 512;

/** Tell the session's subprocess log what a run of ripgrep did (or that it did not finish). */
function reportRun(
  ctx: ToolContext,
  run: { argv: string[]; cwd: string; ms: number },
  output: Deno.CommandOutput | undefined,
): void {
  const head = (bytes: Uint8Array | undefined) =>
    bytes ? new TextDecoder().decode(bytes.subarray(0, HEAD_BYTES)) : "";
  processReportOf(ctx).ran({
    argv: run.argv,
    cwd: run.cwd,
    exitCode: output?.signal ? null : output?.code ?? null,
    signal: output?.signal ?? null,
    timedOut: false,
    cancelled: ctx.signal.aborted,
    durationMs: run.ms,
    stdoutBytes: output?.stdout.length ?? 0,
    stderrBytes: output?.stderr.length ?? 0,
    stdoutHead: head(output?.stdout),
    stderrHead: head(output?.stderr),
  });
}

/** A path ripgrep printed, relative to the start, when it is below it, inside the roots and not hidden. */
function visibleBelow(ctx: ToolContext, start: ResolvedPath, path: string): string | undefined {
  const prefix = `${start.path}/`;
  if (!path.startsWith(prefix)) return undefined;
  const relative = path.slice(prefix.length);
  if (relative === "" || (relative.includes(".") && /(?:^|\/)\.{0,2}(?:\/|$)/.test(relative))) {
    return undefined;
  }
  if (ctx.resolver.locate(path) === undefined || ctx.resolver.hidden(path) !== undefined) {
    return undefined;
  }
  return relative;
}

/** Why ripgrep could not read files, by the words the OS used, as the walker says it. */
const OS_REASONS: Record<string, string> = {
  "Permission denied": "permission denied",
  "No such file or directory": "vanished while being read",
  "File name too long": "path is too long",
  "Too many levels of symbolic links": "symlink loop",
};

/**
 * A line of ripgrep's stderr that says a file or directory could not be read
 * (`PATH: Permission denied (os error 13)`, with `rg: ` before it since
 * ripgrep 14), or undefined for any other line.
 *
 * @param line One line of ripgrep's stderr.
 * @returns The absolute path and the reason.
 */
export function unreadableEntry(line: string): { path: string; reason: string } | undefined {
  const found = /^(?:rg: )?(\/.*): ([^:]+?) \(os error \d+\)$/.exec(line);
  if (!found) return undefined;
  const said = found[2]!;
  return { path: found[1]!, reason: OS_REASONS[said] ?? said.toLowerCase() };
}
