/**
 * run_shell through the launch `mcp-config` prints: a project's own test
 * command, exit codes, where it runs, the seed's result shape, bounded
 * output, progress on long commands, and bad input.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { canRun, missing, tempDir } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";
import { bwrapMissing, hostProcesses, shell, waitUntil } from "../../security/_shell.ts";

/** A few of CPython's own tests, run as the project's test command. */
const STDLIB_TESTS = ["test_bisect.py", "test_heapq.py", "test_textwrap.py", "test_colorsys.py"];

/** Where the installed python3 keeps its test package (they import `test.support`). */
async function stdlibTests(): Promise<string | undefined> {
  if (!canRun("python3")) return undefined;
  const out = await new Deno.Command("python3", {
    args: [
      "-c",
      "import test.support, os; print(os.path.dirname(os.path.dirname(test.support.__file__)))",
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
}

const TESTS = await stdlibTests();
const skipped = bwrapMissing() ||
  missing("python3's test package (test.support, libpython3.X-testsuite)", TESTS !== undefined);

Deno.test({
  name: `run_shell: runs a project's tests and says what happened${
    skipped ? " (skipped: needs bwrap and python3's test package)" : ""
  }`,
  ignore: skipped,
}, async (t) => {
  await using dir = await tempDir();
  const project = `${dir.path}/project`;
  await Deno.mkdir(`${project}/tests`, { recursive: true });
  assert(TESTS !== undefined, "python3's test package is installed (.ci/run installs it)");
  for (const name of STDLIB_TESTS) {
    await Deno.copyFile(`${TESTS}/${name}`, `${project}/tests/${name}`);
  }
  await Deno.writeTextFile(`${project}/tests/__init__.py`, "");
  await using host = await launchHost({ roots: [project] });

  await t.step("the project's own test command runs, and its exit code is reported", async () => {
    const out = await shell(
      host,
      "python3 -m unittest discover -s tests -t . 2>&1 | tail -n 3; exit ${PIPESTATUS[0]}",
    );
    assertMatch(out.text, /Ran \d+ tests/);
    assertStringIncludes(out.text, "OK");
    assertEquals(out.data.exit_code, 0);
    assertMatch(out.text, /^STDOUT:\n[\s\S]*\nSTDERR:\n[\s\S]*\nEXIT CODE: 0$/);
  });
  await t.step("a failing test is a failing exit code, not an error", async () => {
    await Deno.writeTextFile(
      `${project}/tests/test_fails.py`,
      "import unittest\nclass T(unittest.TestCase):\n    def test_no(self):\n        self.assertEqual(1, 2)\n",
    );
    const out = await shell(host, "python3 -m unittest tests.test_fails");
    assertEquals(out.isError, false);
    assertEquals(out.data.exit_code, 1);
    assertStringIncludes(String(out.data.stderr), "FAILED (failures=1)");
  });
  await t.step("cwd is the primary root by default, and may be a directory inside it", async () => {
    assertEquals((await shell(host, "pwd")).data.stdout, `${project}\n`);
    assertEquals((await shell(host, "pwd", { cwd: "tests" })).data.stdout, `${project}/tests\n`);
  });
  await t.step("cwd outside the roots, or missing, is an error and runs nothing", async () => {
    const outside = await shell(host, "touch ../ran", { cwd: ".." });
    assert(outside.isError);
    assertMatch(outside.text, /^path_denied: /);
    const missing = await shell(host, "true", { cwd: "nope" });
    assert(missing.isError);
    assertMatch(missing.text, /^not_found: /);
  });
  await t.step(
    "output past the bound keeps its head and tail and says what was left out",
    async () => {
      const out = await shell(host, "seq 1 200000");
      const stdout = String(out.data.stdout);
      assert(stdout.startsWith("1\n2\n3\n"));
      assert(stdout.trimEnd().endsWith("199999\n200000"));
      assertMatch(stdout, /\[… \d+ bytes left out …\]/);
      assert(stdout.length < 100_000);
    },
  );
  await t.step("a call's env is set; the timeout must be within the longest allowed", async () => {
    assertEquals(
      (await shell(host, 'echo "$GREETING"', { env: { GREETING: "hej" } })).data.stdout,
      "hej\n",
    );
    const long = await shell(host, "true", { timeout_s: 100_000 });
    assert(long.isError);
    assertMatch(long.text, /^invalid_argument: /);
  });
  await t.step("a long command reports its last lines as progress", async () => {
    const seen: string[] = [];
    const result = await host.session.client.callTool(
      {
        name: "run_shell",
        arguments: { command: "for i in 1 2 3 4; do echo line$i; sleep 1; done" },
      },
      {
        onprogress: (progress: { message?: string | undefined }) =>
          void seen.push(progress.message ?? ""),
      },
    );
    assertEquals((result.structuredContent as { exit_code: number }).exit_code, 0);
    assert(seen.some((message) => /line\d/.test(message)), `progress: ${JSON.stringify(seen)}`);
  });
  await t.step("a cancelled command is stopped with every process it started", async () => {
    const stop = new AbortController();
    const call = host.session.client.callTool(
      {
        name: "run_shell",
        arguments: { command: "sleep 3031 & echo started; sleep 3032" },
      },
      {
        signal: stop.signal,
        // Cancel once the command says it runs (its output comes back as progress).
        onprogress: (progress: { message?: string | undefined }) => {
          if (progress.message?.includes("started")) stop.abort();
        },
      },
    );
    await call.then(
      () => assert(false, "the call was not cancelled"),
      (error: unknown) => assertMatch(String(error), /abort|cancel/i),
    );
    await waitUntil(
      async () => (await hostProcesses("sleep 303")).length === 0,
      "both sleeps stopped",
    );
  });
});

Deno.test({
  name: `run_shell: commands cancelled as they start leave no process behind${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async () => {
  await using dir = await tempDir();
  const tag = `4041${crypto.randomUUID().replaceAll("-", "").replace(/\D/g, "").slice(0, 6)}`;
  {
    await using host = await launchHost({ roots: [dir.path] });
    // Cancelled at once, so the host stops each run while bwrap may still be setting up: a kill
    // then, before the namespace's init has asked to die with its parent, used to leave that init
    // and the command running, orphaned, for as long as the command ran.
    const calls = Array.from({ length: 12 }, (_, i) => {
      const stop = new AbortController();
      const call = host.session.client.callTool(
        { name: "run_shell", arguments: { command: `sleep ${tag}${i}` } },
        { signal: stop.signal },
      );
      // A task later, once the client has sent the call (it sends it a few promise turns after
      // callTool is called, and never sends one aborted before then).
      setTimeout(() => stop.abort(), 0);
      return call.then(() => false, () => true);
    });
    assert((await Promise.all(calls)).every(Boolean), "a call was not cancelled");
    // The client gave up at once; the host ends each call once it stopped its run.
    await waitUntil(async () => {
      const found = await host.call("read_interactions", { tool: "run_shell", limit: 50 });
      const page = found.structuredContent as { interactions: Array<{ outcome: string }> };
      return page.interactions.filter((each) => each.outcome === "cancelled").length === 12;
    }, "the host to end the twelve cancelled calls");
    await waitUntil(
      async () => (await hostProcesses(`sleep ${tag}`)).length === 0,
      "every run of a cancelled call to be stopped",
    );
  }
  // Closing the host stops any sandbox it still had; only an orphan would run on.
  assertEquals(await hostProcesses(`sleep ${tag}`), []);
});
