/**
 * `toolhost log` after an agent's session and a `toolhost doctor` run, both
 * as users run them: doctor's probe calls (its `read_file` attempts outside
 * the roots) are left out and counted unless `--all` is given, and
 * `--subprocesses` reads the agent's session, not the doctor's newer ones.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { cliRun, tempDir } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";
import { bwrapMissing } from "../../security/_shell.ts";

async function toolhost(args: string[]): Promise<{ code: number; stdout: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: cliRun(args),
    cwd: "/",
    stdin: "null",
    stderr: "null",
  }).output();
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
}

/** The interaction log's lines, as written. */
async function logLines(root: string): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  for await (const entry of Deno.readDir(`${root}/.toolhost/interactions`)) {
    const text = await Deno.readTextFile(`${root}/.toolhost/interactions/${entry.name}`);
    lines.push(...text.trimEnd().split("\n").map((line) => JSON.parse(line)));
  }
  return lines;
}

/** The session folders, by name. */
async function sessions(root: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${root}/.toolhost/sessions`)) names.push(entry.name);
  return names.sort();
}

// Doctor's sessions hold the sandbox's start-up probes: where bwrap is missing they may hold nothing.
const skip = bwrapMissing() ? " (skipped: bwrap not installed)" : "";

Deno.test({
  name:
    `toolhost log leaves doctor's probes out unless --all; --subprocesses reads the agent's session${skip}`,
  ignore: skip !== "",
}, async (t) => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  let agent: string;
  {
    await using host = await launchHost({ roots: [root.path] });
    await host.call("read_file", { path: "a.txt" });
    const page = await host.call("read_interactions", { kind: "subprocess" });
    agent = String(page.structuredContent?.session);
  }
  // The doctor's own host and the served process it starts leave sessions newer than the agent's.
  await toolhost(["doctor", "--root", root.path]);
  const probes = (await logLines(root.path)).filter((line) => line.client === "doctor");
  assert(probes.length > 0, "doctor's probes are in the log");
  // Every other session is the doctor's, written after the agent's.
  const doctors = (await sessions(root.path)).filter((id) => id !== agent);
  assert(doctors.length > 0, "doctor left sessions of its own");

  await t.step("the calls: the agent's; doctor's counted, shown with --all", async () => {
    const shown = await toolhost(["log", "--root", root.path]);
    assertEquals(shown.code, 0);
    assertMatch(shown.stdout, /read_file\s+ok .*a\.txt/);
    assertFalse(shown.stdout.includes("path_denied"), shown.stdout);
    assertStringIncludes(
      shown.stdout,
      `${probes.length} of toolhost doctor's probe call(s) not shown: --all shows them`,
    );
    const all = await toolhost(["log", "--all", "--root", root.path]);
    const denied = all.stdout.split("\n").filter((line) =>
      /read_file\s+path_denied .*doctor/.test(line)
    );
    assertEquals(denied.length, probes.length, all.stdout);
    assertFalse(all.stdout.includes("not shown"), all.stdout);
  });

  await t.step("--subprocesses: the agent's session; with --all, the latest of any", async () => {
    const shown = await toolhost(["log", "--subprocesses", "--root", root.path]);
    assertEquals(shown.code, 0);
    assertMatch(shown.stdout, new RegExp(`process\\(es\\) of session ${agent}`));
    assertStringIncludes(shown.stdout, `${doctors.length} newer session(s) no MCP client spoke to`);
    const all = await toolhost(["log", "--subprocesses", "--all", "--root", root.path]);
    const read = /process\(es\) of session (\S+)/.exec(all.stdout)?.[1];
    assert(read !== undefined && doctors.includes(read), all.stdout);
  });
});
