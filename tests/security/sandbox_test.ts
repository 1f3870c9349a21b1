/**
 * The sandbox's layout as bwrap arguments (a unit test of one module: what
 * is mounted, in which order, and what is hidden).
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../_assert.ts";
import { bwrapArgs, limitScript, type SandboxPlan } from "../../security/sandbox.ts";

const PLAN: SandboxPlan = {
  bwrap: "/usr/bin/bwrap",
  unconfined: null,
  shell: "/bin/bash",
  path: "/home/u/.cargo/bin:/usr/bin",
  home: "/home/u",
  env: { LANG: "C.UTF-8" },
  system: [
    { kind: "dir", path: "/usr" },
    { kind: "symlink", path: "/bin", target: "usr/bin" },
    { kind: "dir", path: "/etc" },
  ],
  toolchains: ["/home/u/.cargo"],
  hidden: [
    { path: "/etc/shadow", dir: false },
    { path: "/home/u/.ssh", dir: true },
    { path: "/home/u/project/.aws", dir: true },
    { path: "/srv/elsewhere/.env", dir: false },
  ],
  network: false,
  limits: { memoryMb: 1024, fileMb: 16, processes: 64, openFiles: 256 },
  programs: { git: "/usr/bin/git" },
  timeoutS: { default: 60, max: 600 },
  root: true,
};

const RUN = {
  roots: ["/home/u/project"],
  write: true,
  protectedPaths: ["/home/u/project/.git/hooks", "/home/u/project/.mcp.json"],
  stateDir: "/home/u/project/.toolhost",
  cwd: "/home/u/project/src",
  env: { PATH: "/usr/bin", HOME: "/home/u" },
};

/** The index of an argument sequence in the arguments. */
function at(args: string[], ...sequence: string[]): number {
  for (let i = 0; i + sequence.length <= args.length; i++) {
    if (sequence.every((arg, j) => args[i + j] === arg)) return i;
  }
  return -1;
}

Deno.test("sandbox layout: every namespace, no capabilities, death with the host", () => {
  const args = bwrapArgs(PLAN, RUN);
  for (const flag of ["--unshare-all", "--die-with-parent", "--new-session"]) {
    assert(args.includes(flag), flag);
  }
  assert(at(args, "--cap-drop", "ALL") >= 0);
  assertFalse(args.includes("--share-net"));
  assert(bwrapArgs({ ...PLAN, network: true }, RUN).includes("--share-net"));
  assertEquals(args.slice(-3), ["--chdir", RUN.cwd, "--"]);
});

Deno.test("sandbox layout: the environment is set inside, from nothing (bwrap itself gets none)", () => {
  const args = bwrapArgs(PLAN, RUN);
  const clear = at(args, "--clearenv");
  assert(clear >= 0 && at(args, "--setenv", "PATH", "/usr/bin") > clear);
  assert(at(args, "--setenv", "HOME", "/home/u") > clear);
});

Deno.test("sandbox layout: the directories holding protected paths are mounted over themselves (no rename carries them away)", () => {
  const args = bwrapArgs(PLAN, RUN);
  const git = at(args, "--bind", "/home/u/project/.git", "/home/u/project/.git");
  const hooks = at(args, "--ro-bind", "/home/u/project/.git/hooks", "/home/u/project/.git/hooks");
  assert(git >= 0 && hooks > git, args.join(" "));
  assertEquals(at(args, "--bind", "/home/u/project", "/home/u/project") < git, true);
});

Deno.test("sandbox layout: system read-only, a fresh /tmp and home, then toolchains and roots over them", () => {
  const args = bwrapArgs(PLAN, RUN);
  assert(at(args, "--ro-bind", "/usr", "/usr") >= 0);
  assert(at(args, "--symlink", "usr/bin", "/bin") >= 0);
  const home = at(args, "--tmpfs", "/home/u");
  const tmp = at(args, "--tmpfs", "/tmp");
  const cargo = at(args, "--ro-bind", "/home/u/.cargo", "/home/u/.cargo");
  const root = at(args, "--bind", "/home/u/project", "/home/u/project");
  assert(tmp >= 0 && home > tmp && cargo > home && root > cargo, args.join(" "));
});

Deno.test("sandbox layout: protected paths read-only and the state directory empty, after the roots", () => {
  const args = bwrapArgs(PLAN, RUN);
  const root = at(args, "--bind", "/home/u/project", "/home/u/project");
  const hooks = at(args, "--ro-bind", "/home/u/project/.git/hooks", "/home/u/project/.git/hooks");
  const state = at(args, "--tmpfs", RUN.stateDir);
  assert(hooks > root && state > root);
  assert(at(args, "--remount-ro", RUN.stateDir) > state);
  const read = bwrapArgs(PLAN, { ...RUN, write: false });
  assert(at(read, "--ro-bind", "/home/u/project", "/home/u/project") >= 0);
  assertEquals(at(read, "--ro-bind", "/home/u/project/.mcp.json", "/home/u/project/.mcp.json"), -1);
});

Deno.test("sandbox layout: never-visible paths are hidden where something mounted holds them", () => {
  const args = bwrapArgs(PLAN, RUN);
  assert(at(args, "--ro-bind", "/dev/null", "/etc/shadow") >= 0);
  // Inside a root: hidden there too.
  assert(at(args, "--tmpfs", "/home/u/project/.aws") >= 0);
  // The home is an empty tmpfs: its .ssh is not there to hide; nor is what nothing mounts.
  assertEquals(at(args, "--tmpfs", "/home/u/.ssh"), -1);
  assertFalse(args.includes("/srv/elsewhere/.env"));
});

Deno.test("limit script: rlimits always; the watch only in the sandbox's own PID namespace, the program niced below it for root", () => {
  const watched = limitScript(PLAN.limits, { watch: true, nice: true });
  assertStringIncludes(watched, "ulimit -d 1048576 -f 16384 -n 256");
  assertStringIncludes(watched, "ulimit -u 64");
  assertStringIncludes(watched, "kill -9 -1");
  assert(watched.endsWith(`printf '\\000toolhost:started\\n' >&2\nnice -n 15 "$@"`), watched);
  const plain = limitScript(PLAN.limits, { watch: false, nice: false });
  assertFalse(plain.includes("kill"));
  assert(plain.endsWith(`printf '\\000toolhost:started\\n' >&2\n"$@"`), plain);
});
