/**
 * Helpers for the git tools' tests: real repositories made with real git,
 * hostile ones whose config runs programs (kept inside a root, where the
 * sandbox shows them) that print a marker and try to leave a file outside
 * the roots and inside one, and two sandboxes for unit tests of the tools
 * (one that records and answers from a script, one that runs git
 * directly, unconfined, so that the overrides alone are what is tested).
 *
 * @module
 */

import { type Tool, type ToolContext, ToolError, type ToolResult } from "../../../tools/tool.ts";

/** The marker the hostile programs print (`PWNED-<what>`, to stdout and stderr). */
export const PWNED = "PWNED";

/**
 * Where the hostile programs live, and where they try to leave a file
 * named after what ran: outside the roots (under the host's /tmp, which
 * the sandbox does not show at all) and inside one (which the sandbox
 * mounts read-only for git).
 */
export interface HostileDirs {
  /** A directory outside the roots. */
  readonly outside: string;
  /** A directory inside the primary root, out of every work tree (`.git/hostile/marks`). */
  readonly inside: string;
  /** The programs git runs directly (fsmonitor, gpg), inside the primary root. */
  readonly bin: string;
}

export { DirectSandbox, ScriptedSandbox, withSandbox } from "../_sandboxes.ts";

/**
 * Run git for a test's own setup (never in a hostile repository): no
 * system or global config, an identity for commits.
 *
 * @param cwd Where.
 * @param args The arguments.
 * @returns Its standard output.
 */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "-c",
      "protocol.file.allow=always",
      ...args,
    ],
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${text(out.stderr)}`);
  return text(out.stdout);
}

/**
 * A repository with two commits (`a.txt`, `src/b.ts`, `-n`, `.gitattributes`),
 * uncommitted changes to `a.txt` and `src/b.ts` (the same size as committed:
 * git must read them), and an untracked `new.txt`.
 *
 * @param dir Where (created).
 * @returns Its path.
 */
export async function makeRepo(dir: string): Promise<string> {
  await Deno.mkdir(`${dir}/src`, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${dir}/a.txt`, "alpha\nbeta\ngamma\n");
  await Deno.writeTextFile(`${dir}/src/b.ts`, "export const b = 1;\n");
  await Deno.writeTextFile(`${dir}/-n`, "dash\n");
  await Deno.writeTextFile(`${dir}/.gitattributes`, "* filter=evil diff=evil\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "first commit");
  await Deno.writeTextFile(`${dir}/a.txt`, "alpha\nBETA\ngamma\ndelta\n");
  await git(dir, "commit", "-qam", "second: beta and delta");
  await Deno.writeTextFile(`${dir}/a.txt`, "alpha\nBETA\nGAMMA\ndelta\n");
  await Deno.writeTextFile(`${dir}/src/b.ts`, "export const b = 2;\n");
  await Deno.writeTextFile(`${dir}/new.txt`, "untracked\n");
  return dir;
}

/**
 * A command for a hostile config: tries to leave a file in both mark
 * directories, then prints its marker to stderr and stdout (git passes
 * some programs' output on, or reads it as content).
 *
 * @param dirs Where the marks go.
 * @param what What ran.
 * @returns The shell command.
 */
export function mark(dirs: HostileDirs, what: string): string {
  return `sh -c '${markBody(dirs, what).join("; ")}' --`;
}

/**
 * The commands of a hostile program; the files first: git may stop reading
 * at the first line. The marker is spelled `PWN""ED` in the command, so a
 * tool that reads the config (filter drivers) never shows it: only a run
 * prints it.
 */
function markBody(dirs: HostileDirs, what: string): string[] {
  const printed = `${PWNED.slice(0, 3)}""${PWNED.slice(3)}-${what}`;
  return [
    `touch ${dirs.outside}/${what} 2>/dev/null`,
    `touch ${dirs.inside}/${what} 2>/dev/null`,
    `echo ${printed} >&2`,
    `echo ${printed}`,
  ];
}

/**
 * Make a repository hostile: every setting that runs a program on a read
 * command, each leaving a mark, and a signed HEAD (so that showing
 * signatures would run gpg). Run no git in it afterwards except through
 * the tools.
 *
 * @param repo The repository.
 * @param dirs Where the programs are and the marks go (from {@linkcode hostileDirs}).
 */
export async function makeHostile(repo: string, dirs: HostileDirs): Promise<void> {
  await signHead(repo, dirs.outside);
  const config: Array<[string, string]> = [
    ["core.fsmonitor", await script(dirs, "fsmonitor")],
    ["core.pager", mark(dirs, "pager")],
    ["pager.log", mark(dirs, "pager-log")],
    ["diff.external", mark(dirs, "external")],
    ["diff.evil.command", mark(dirs, "diff-command")],
    ["diff.evil.textconv", mark(dirs, "textconv")],
    ["filter.evil.clean", mark(dirs, "clean")],
    ["filter.evil.smudge", mark(dirs, "smudge")],
    ["filter.evil.process", mark(dirs, "process")],
    ["filter.evil.required", "true"],
    ["log.showSignature", "true"],
    ["gpg.program", await script(dirs, "gpg")],
    ["gpg.ssh.program", await script(dirs, "gpg-ssh")],
    ["core.sshCommand", mark(dirs, "ssh")],
    ["core.hooksPath", `${repo}/.git/hooks`],
    ["color.ui", "always"],
    ["diff.noprefix", "true"],
  ];
  for (const [key, value] of config) await git(repo, "config", key, value);
  // A driver with `=` in its name (`-c` would split it there), from an included file.
  const included = `${repo}/.git/included.cfg`;
  await Deno.writeTextFile(included, `[filter "x=y"]\n\tclean = ${mark(dirs, "included")}\n`);
  await git(repo, "config", "include.path", included);
  await Deno.writeTextFile(`${repo}/.git/info/attributes`, "a.txt filter=x=y\n");
  for (const name of ["post-index-change", "pre-commit", "post-checkout"]) {
    await Deno.writeTextFile(
      `${repo}/.git/hooks/${name}`,
      `#!/bin/sh\n${markBody(dirs, `hook-${name}`).join("\n")}\n`,
    );
    await Deno.chmod(`${repo}/.git/hooks/${name}`, 0o755);
  }
}

/**
 * Make the directories of a hostile repository's programs and inside marks
 * (under its `.git/`: no work tree lists them).
 *
 * @param repo The repository (the primary root).
 * @param outside A directory outside the roots.
 * @returns The directories.
 */
export async function hostileDirs(repo: string, outside: string): Promise<HostileDirs> {
  const dirs = { outside, inside: `${repo}/.git/hostile/marks`, bin: `${repo}/.git/hostile/bin` };
  await Deno.mkdir(dirs.inside, { recursive: true });
  await Deno.mkdir(dirs.bin, { recursive: true });
  return dirs;
}

/** A program (not a shell command: gpg and fsmonitor hooks are run directly) that leaves a mark. */
async function script(dirs: HostileDirs, what: string): Promise<string> {
  const path = `${dirs.bin}/${what}`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${markBody(dirs, what).join("\n")}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

/** Replace HEAD by the same commit with a (fake) PGP signature. */
async function signHead(repo: string, outside: string): Promise<void> {
  const commit = await git(repo, "cat-file", "commit", "HEAD");
  const signature =
    "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAd\n -----END PGP SIGNATURE-----\n";
  const signed = commit.replace(/^(committer .*\n)/m, `$1${signature}`);
  const file = `${outside}/signed-commit`;
  await Deno.writeTextFile(file, signed);
  const oid = (await git(repo, "hash-object", "-t", "commit", "-w", file)).trim();
  await Deno.remove(file);
  await git(repo, "update-ref", "HEAD", oid);
}

/**
 * A partial clone of a repository (blobs left on the origin) whose origin
 * is fetched by a command that leaves a mark: showing an old file would
 * fetch it.
 *
 * @param origin The repository to clone (it gets `uploadpack.allowFilter`).
 * @param dir Where the clone goes.
 * @param dirs Where the marks go.
 */
export async function makePartialClone(
  origin: string,
  dir: string,
  dirs: HostileDirs,
): Promise<void> {
  await git(origin, "config", "uploadpack.allowFilter", "true");
  await git(origin, "config", "uploadpack.allowAnySHA1InWant", "true");
  await git("/", "clone", "-q", "--no-checkout", "--filter=blob:none", `file://${origin}`, dir);
  await git(
    dir,
    "config",
    "remote.origin.uploadpack",
    `${mark(dirs, "uploadpack")}; git-upload-pack`,
  );
  await git(dir, "config", "protocol.file.allow", "always");
}

/** The files in a directory, by name. */
export async function listDir(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/**
 * Call a tool as the registry does: input checked (defaults filled), errors as results.
 *
 * @param tool The tool.
 * @param args Its arguments.
 * @param ctx The context.
 * @returns The result; a `ToolError` becomes `{isError, "<code>: <message>"}`.
 */
export async function callTool(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolResult> {
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) throw new Error(`bad test input: ${JSON.stringify(parsed.error.issues)}`);
  try {
    return await tool.run(parsed.data, ctx);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { isError: true, content: [{ type: "text", text: `${error.code}: ${error.message}` }] };
  }
}

/** The hostile repositories of {@linkcode makeHostileWorld}, each a root. */
export interface HostileWorld {
  /** A hostile repository (the primary root). */
  readonly repo: string;
  /** A repository with a submodule whose own config and attributes are hostile. */
  readonly superproject: string;
  /** A directory holding `origin/` and `pc/`, a partial clone fetched by a hostile command. */
  readonly clones: string;
  /** The roots, the primary first. */
  readonly roots: readonly string[];
  /** Where the programs are and the marks go. */
  readonly dirs: HostileDirs;
}

/**
 * Hostile repositories under `base` whose programs try to write to
 * `outside` and into the primary root: one with every setting, one whose
 * submodule has its own, and a partial clone whose missing objects would
 * be fetched by a command.
 *
 * @param base An empty directory (the roots are made in it).
 * @param outside A directory outside the roots, for marks.
 * @returns The roots.
 */
export async function makeHostileWorld(base: string, outside: string): Promise<HostileWorld> {
  const repo = await makeRepo(`${base}/repo`);
  const dirs = await hostileDirs(repo, outside);
  await makeHostile(repo, dirs);
  const source = await makeRepo(`${base}/subsource`);
  await git(source, "add", "-A");
  await git(source, "commit", "-qm", "all");
  const superproject = `${base}/super`;
  await Deno.mkdir(superproject);
  await git(superproject, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${superproject}/top.txt`, "top\n");
  await git(superproject, "add", "top.txt");
  await git(superproject, "submodule", "-q", "add", `file://${source}`, "sub");
  await git(superproject, "commit", "-qm", "with a submodule");
  const sub = `${superproject}/sub`;
  await Deno.writeTextFile(`${sub}/.gitattributes`, "* filter=subevil diff=subevil\n");
  await Deno.writeTextFile(`${sub}/a.txt`, "ALPHA\nBETA\nGAMMA\ndelta\n");
  await git(sub, "config", "filter.subevil.clean", mark(dirs, "submodule-clean"));
  await git(sub, "config", "diff.subevil.textconv", mark(dirs, "submodule-textconv"));
  await git(sub, "config", "core.fsmonitor", await script(dirs, "submodule-fsmonitor"));
  const clones = `${base}/clones`;
  await Deno.mkdir(clones);
  const origin = await makeRepo(`${clones}/origin`);
  await makePartialClone(origin, `${clones}/pc`, dirs);
  return { repo, superproject, clones, roots: [repo, superproject, clones], dirs };
}

/**
 * The calls every git tool must answer in a hostile world without running
 * anything of the repositories' (a partial clone's missing object is an
 * error: nothing may fetch it).
 *
 * @param world The world.
 * @returns Each call: the tool, its arguments, whether it must fail.
 */
export function hostileCalls(
  world: HostileWorld,
): Array<[string, Record<string, unknown>, boolean]> {
  const { repo, superproject: sp, clones } = world;
  return [
    ["git_status", {}, false],
    ["git_status", { path: "a.txt" }, false],
    ["get_git_diff", { path: "." }, false],
    ["get_git_diff", { path: "a.txt", base_rev: "HEAD~1" }, false],
    ["get_git_diff", { path: ".", base_rev: "HEAD~1", head_rev: "HEAD" }, false],
    ["git_log", {}, false],
    ["git_log", { path: `${repo}/a.txt`, limit: 5 }, false],
    ["git_show", { rev: "HEAD" }, false],
    ["git_show", { rev: "HEAD~1", path: "a.txt" }, false],
    ["git_blame", { path: "a.txt" }, false],
    ["git_blame", { path: "src/b.ts" }, false],
    ["git_blame", { path: "a.txt", rev: "HEAD~1" }, false],
    ["git_status", { path: sp }, false],
    ["get_git_diff", { path: sp }, false],
    ["get_git_diff", { path: `${sp}/sub/a.txt` }, false],
    ["git_blame", { path: `${sp}/sub/a.txt` }, false],
    ["git_show", { rev: "HEAD~1", path: `${clones}/pc/a.txt` }, true],
    ["get_git_diff", { path: `${clones}/pc`, base_rev: "HEAD~1", head_rev: "HEAD" }, true],
  ];
}

/**
 * What the hostile programs left: the files in `outside` by name, then
 * those inside the root as `inside:<name>`.
 *
 * @param dirs The mark directories.
 * @returns Their names.
 */
export async function marks(dirs: HostileDirs): Promise<string[]> {
  const inside = (await listDir(dirs.inside)).map((name) => `inside:${name}`);
  return [...(await listDir(dirs.outside)), ...inside];
}
