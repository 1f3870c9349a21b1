/**
 * The README's two top commands, as a newcomer runs them: in a fresh clone,
 * with a fresh HOME (nothing cached: no Deno, no packages) and a PATH with
 * Node.js but no Deno on it. The run command serves (its stdin closed, it
 * ends) and prints at most ten lines; the test command prints nothing from
 * a package manager before the suite's own output. So that the suite does
 * not run itself, `TOOLHOST_TEST_FILES` narrows the test command to one
 * small file (tests/_run.ts reads it); the command line is the README's.
 */
import { assert, assertEquals } from "../../_assert.ts";

const REPO = new URL("../../../", import.meta.url);

/** The commands of the README's first `sh` block, without their comments. */
async function topCommands(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return block.split("\n").map((line) => line.replace(/#.*$/, "").trim()).filter(Boolean);
}

/**
 * The machine's environment (certificates, proxies) with a fresh HOME and no Deno on the PATH. A
 * folder of the PATH that holds a `deno` is replaced by a copy of its links without it: `npm
 * install -g deno` puts it in /usr/bin, beside the shell and Node that the newcomer keeps.
 */
async function newcomerEnv(home: string, scratch: string): Promise<Record<string, string>> {
  const env = Deno.env.toObject();
  for (const name of Object.keys(env)) {
    if (/^(XDG_|DENO_|TOOLHOST_|NPM_CONFIG_|npm_config_)/.test(name)) delete env[name];
  }
  const path: string[] = [];
  for (const [index, dir] of (env.PATH ?? "/usr/bin:/bin").split(":").entries()) {
    const hasDeno = await Deno.stat(`${dir}/deno`).then(() => true, () => false);
    path.push(hasDeno ? await withoutDeno(dir, `${scratch}/path-${index}`) : dir);
  }
  return { ...env, HOME: home, PATH: path.join(":"), NO_COLOR: "1" };
}

/** A new folder `into` with a link to each entry of `dir` but `deno`. */
async function withoutDeno(dir: string, into: string): Promise<string> {
  await Deno.mkdir(into);
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name !== "deno") await Deno.symlink(`${dir}/${entry.name}`, `${into}/${entry.name}`);
  }
  return into;
}

async function run(
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

/** What a package manager prints (Deno's and npm's), which the commands keep to themselves. */
const PACKAGE_MANAGER =
  /^(Download|Initialize|Warning|npm (warn|notice|WARN|ERR)|╭|│|╰)|approve-scripts/;

Deno.test("the README's two top commands work in a fresh clone with only Node.js, and stay quiet", async () => {
  const commands = await topCommands();
  assertEquals(commands.length, 2, `the README's first block: ${commands.join(" | ")}`);
  const [start, test] = commands as [string, string];
  assert(
    commands.every((command) => command.startsWith("bin/toolhost ")),
    "both need only Node.js",
  );
  const scratch = await Deno.makeTempDir({ prefix: "toolhost-newcomer-" });
  try {
    const clone = `${scratch}/toolhost`;
    const cloned = await new Deno.Command("git", {
      args: ["clone", "--quiet", REPO.pathname, clone],
      stdout: "null",
    }).output();
    assert(cloned.success, "git clone of the checkout failed");
    await Deno.mkdir(`${scratch}/home`);
    const env = await newcomerEnv(`${scratch}/home`, scratch);
    const whichDeno = await run("command -v deno || true", scratch, env);
    assertEquals(whichDeno.stdout.trim(), "", "the newcomer's PATH has no Deno on it");

    const served = await run(start, clone, env);
    const lines = `${served.stdout}${served.stderr}`.split("\n").filter(Boolean);
    assertEquals(served.code, 0, served.stderr);
    assertEquals(served.stdout, "", "nothing but MCP goes to stdout, and no client spoke");
    assert(
      lines.length <= 10,
      `the run command printed ${lines.length} lines:\n${lines.join("\n")}`,
    );
    assert(lines.some((line) => line.startsWith("toolhost: serving ")), served.stderr);
    assert(!lines.some((line) => PACKAGE_MANAGER.test(line)), served.stderr);

    const tested = await run(test, clone, { ...env, TOOLHOST_TEST_FILES: "tests/layout_test.ts" });
    assertEquals(tested.code, 0, `${tested.stdout}\n${tested.stderr}`);
    assert(/^ok \| 1 passed/m.test(tested.stdout), tested.stdout);
    const before = tested.stderr.split("\n").filter(Boolean)
      .filter((line) => !/^(The \d+ slowest test files|\s+[0-9.]+ s {2})/.test(line));
    assertEquals(
      before.filter((line) => !line.startsWith("toolhost: ")),
      [],
      "the test command's own lines are toolhost's, and the suite's",
    );
    assert(!tested.stdout.split("\n").some((line) => PACKAGE_MANAGER.test(line)), tested.stdout);
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
});
