/**
 * The Beads tools as a client meets them, through the launch `mcp-config`
 * prints. Whether they are listed hangs on `bd` being on the sandbox's PATH:
 * the first test runs everywhere, with a PATH that has no `bd`. The others
 * run the real `bd` and are skipped where it is not on the PATH (its npm
 * package downloads the binary at install, which fails without the
 * internet; `.ci/run` does not install it).
 *
 * @module
 */

import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import { canRun, tempDir, textOf } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";

/** The directories of this PATH that hold a program, and all of them. */
function pathDirs(): string[] {
  return (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":").filter(Boolean);
}

function holds(dir: string, program: string): boolean {
  try {
    return Deno.statSync(`${dir}/${program}`).isFile;
  } catch {
    return false; // not there (or not readable): not found on the PATH either
  }
}

/** Where `bd` is on this PATH, if anywhere (CI or not: it is never installed there). */
const BD = pathDirs().find((dir) => holds(dir, "bd"));

/** Run a program outside the sandbox, for a test's setup and its own checks. */
async function run(program: string, args: string[], cwd: string, home: string): Promise<string> {
  const output = await new Deno.Command(program, {
    args,
    cwd,
    env: { HOME: home, BD_NO_DAEMON: "true" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  if (!output.success) {
    throw new Error(`${program} ${args.join(" ")} failed: ${text.decode(output.stderr)}`);
  }
  return text.decode(output.stdout);
}

/** A root that `bd init` made a Beads workspace of (in a git repository, as bd expects). */
async function beadsRoot(root: string, home: string): Promise<void> {
  if (canRun("git")) await run("git", ["init", "--quiet"], root, home);
  await run("bd", ["init", "--prefix=tst", "--quiet"], root, home);
}

Deno.test("bd tools are not listed where bd is not on the sandbox's PATH (runs everywhere)", async () => {
  await using root = await tempDir();
  const path = pathDirs().filter((dir) => !holds(dir, "bd")).join(":");
  await using host = await launchHost({
    roots: [root.path],
    env: { PATH: path, TOOLHOST_DENO: Deno.execPath() },
  });
  const names = host.list().map((tool) => tool.name);
  assertEquals(names.filter((name) => name.startsWith("bd_")), [], names.join(" "));
  if (canRun("bwrap")) {
    // The sandbox runs here: bd's absence, not the sandbox's, keeps them out.
    assert(names.includes("run_shell"), `run_shell is listed: ${names.join(" ")}`);
  }
});

Deno.test({
  name:
    "bd tools create, list, update and show ready beads of a real bd workspace (skipped where bd is not on the PATH)",
  ignore: BD === undefined,
  async fn() {
    await using root = await tempDir();
    await using home = await tempDir();
    await beadsRoot(root.path, home.path);
    await using host = await launchHost({ roots: [root.path] });
    const names = host.list().map((tool) => tool.name);
    for (const tool of ["bd_list", "bd_ready", "bd_create", "bd_update"]) {
      assert(names.includes(tool), `${tool} is listed: ${names.join(" ")}`);
    }

    const created = await host.call("bd_create", {
      title: "--First task",
      description: "Do the first thing",
    });
    const match = /^Created ID: (\S+), Status: open, Title: --First task$/.exec(textOf(created));
    assert(match, textOf(created));
    const id = match[1]!;
    const row = `ID: ${id}, Status: open, Title: --First task`;
    assert(textOf(await host.call("bd_list")).split("\n").includes(row), "bd_list shows it");
    assert(textOf(await host.call("bd_ready")).split("\n").includes(row), "bd_ready shows it");

    const updated = await host.call("bd_update", { bead_id: id, status: "in_progress" });
    assertEquals(textOf(updated), `Updated ID: ${id}, Status: in_progress, Title: --First task`);
    const ready = textOf(await host.call("bd_ready"));
    assert(!ready.includes(id), `an in_progress bead is not ready: ${ready}`);

    // bd itself, outside the sandbox, sees what the sandboxed bd wrote.
    const shown: unknown = JSON.parse(
      await run("bd", ["show", "--json", id], root.path, home.path),
    );
    const bead = (Array.isArray(shown) ? shown[0] : shown) as { status?: string; title?: string };
    assertEquals([bead.title, bead.status], ["--First task", "in_progress"]);
  },
});

Deno.test({
  name:
    "bd tools answer not_found: no active workspace without .beads/ (skipped where bd is not on the PATH)",
  ignore: BD === undefined,
  async fn() {
    await using root = await tempDir();
    await using host = await launchHost({ roots: [root.path] });
    for (
      const [tool, args] of [["bd_list", {}], ["bd_ready", {}], ["bd_create", {
        title: "t",
      }]] as const
    ) {
      const result = await host.call(tool, args);
      assertEquals(result.isError, true, tool);
      assertMatch(
        textOf(result),
        /^not_found: no active workspace to run beads tools \(no \.beads\//,
      );
    }
    const files = await Array.fromAsync(Deno.readDir(root.path), (entry) => entry.name);
    assert(!files.includes(".beads"), "no tool made a workspace");
  },
});

Deno.test({
  name:
    `a program named bd that does not run (an npm shim whose download failed) lists no bd tool, and the start-up line says why${
      canRun("bwrap") ? "" : " (skipped: bwrap is not installed)"
    }`,
  ignore: !canRun("bwrap"),
}, async () => {
  await using root = await tempDir();
  await using bin = await tempDir();
  // Not an imitation of bd: `false` under bd's name, a program that never runs as bd.
  const falseProgram = holds("/usr/bin", "false") ? "/usr/bin/false" : "/bin/false";
  await Deno.symlink(falseProgram, `${bin.path}/bd`);
  const path = [bin.path, ...pathDirs().filter((dir) => !holds(dir, "bd"))].join(":");
  await using host = await launchHost({
    roots: [root.path],
    env: { PATH: path, TOOLHOST_DENO: Deno.execPath() },
  });
  const names = host.list().map((tool) => tool.name);
  assertEquals(names.filter((name) => name.startsWith("bd_")), []);
  assert(names.includes("run_shell"), names.join(" "));
  assertMatch(host.session.stderr(), /bd found but its tools not listed: "bd --version" failed/);
});
