/**
 * Untrusted text reaches a person escaped, end to end: an agent's command
 * with escape sequences in it (run by run_shell in the launch users run),
 * file names with C1 and bidi controls, and a root whose name holds ESC,
 * BEL, a bidi override and a line feed, seen through the real CLI
 * (`toolhost log`, `toolhost log --subprocesses`, `toolhost doctor`) and
 * the served process's start-up line.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../../_assert.ts";
import { cliRun, tempDir } from "../../_helpers.ts";
import { launchHost, resultText } from "../../_mcp.ts";
import { bwrapMissing } from "../../security/_shell.ts";
import { servedStatus } from "../../../host/cli/doctor_served.ts";

const ESC = "\x1b";
const BEL = "\x07";

/** What no line shown to a person may hold raw: controls (C0, DEL, C1), bidi controls. */
const RAW_UNSAFE = /[\p{Cc}\p{Bidi_Control}]/u;

/** What a run of the CLI printed. */
interface Shown {
  code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  /** Both, as text. */
  text: string;
}

/** `toolhost <args>` from `/`. */
async function toolhost(args: string[]): Promise<Shown> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: cliRun(args),
    cwd: "/",
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(new Uint8Array([...stdout, ...stderr]));
  return { code, stdout, stderr, text };
}

/** Neither ESC nor BEL as a byte, and no line holding a control or bidi character raw. */
function assertNothingRaw(shown: Shown): void {
  for (const bytes of [shown.stdout, shown.stderr]) {
    assertFalse(bytes.includes(0x1b), "an ESC byte reached the terminal");
    assertFalse(bytes.includes(0x07), "a BEL byte reached the terminal");
  }
  for (const line of shown.text.split("\n")) {
    assertFalse(RAW_UNSAFE.test(line), `a raw control in ${JSON.stringify(line)}`);
  }
}

Deno.test({
  name: `toolhost log shows an agent's escape sequences and hostile file names escaped${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async (t) => {
  await using root = await tempDir();
  // Raw sequences in the command's own text (its argv), then a printf that writes them.
  const command = `: '${ESC}]0;pwned${BEL}${ESC}[2J\u009b31m\u202e'; ` +
    String.raw`printf '\033]0;pwned\007\033[2J\033]52;c;aGk=\007'`;
  {
    await using host = await launchHost({ roots: [root.path] });
    const ran = await host.call("run_shell", { command });
    assertFalse(ran.isError, resultText(ran));
    // The command ran and wrote real escape sequences: the log has something hostile to show.
    assertStringIncludes(resultText(ran), `${ESC}]0;pwned${BEL}${ESC}[2J${ESC}]52;c;aGk=${BEL}`);
    for (const path of ["f\u202egnp.txt", "g\u009b2J.txt"]) {
      const wrote = await host.call("write_file", { path, content: "x\n" });
      assertFalse(wrote.isError, resultText(wrote));
    }
  }
  await t.step("--subprocesses: the command's cell", async () => {
    const shown = await toolhost(["log", "--subprocesses", "--root", root.path]);
    assertEquals(shown.code, 0, shown.text);
    assertNothingRaw(shown);
    assertStringIncludes(shown.text, String.raw`-c : '\e]0;pwned\a\e[2J\u{9B}31m\u{202E}'; `);
    // A backslash the agent typed is doubled: it never reads as an escape of ours.
    assertStringIncludes(shown.text, String.raw`printf '\\033]0;pwned\\007\\033[2J`);
  });
  await t.step("the calls table: the paths' cells", async () => {
    const shown = await toolhost(["log", "--root", root.path]);
    assertEquals(shown.code, 0, shown.text);
    assertNothingRaw(shown);
    assertStringIncludes(shown.text, String.raw`f\u{202E}gnp.txt`);
    assertStringIncludes(shown.text, String.raw`g\u{9B}2J.txt`);
  });
});

Deno.test("a root's name is shown escaped by the start-up line and toolhost doctor", async (t) => {
  await using base = await tempDir();
  const root = `${base.path}/root${ESC}]0;pwned${BEL}\u202e\nforged`;
  await Deno.mkdir(root);
  const escaped = String.raw`root\e]0;pwned\a\u{202E}\nforged`;
  await t.step("the start-up line stays one line, escaped", async () => {
    // What `start` says on stderr when it begins to serve (read up to its first line feed).
    const line = await servedStatus({
      command: Deno.execPath(),
      args: cliRun(["start", "--root", root]),
    });
    assertFalse(RAW_UNSAFE.test(line), JSON.stringify(line));
    assertStringIncludes(line, `serving ${base.path}/${escaped}; `);
  });
  await t.step("doctor's report", async () => {
    const shown = await toolhost(["doctor", "--root", root]);
    assertNothingRaw(shown);
    assertStringIncludes(shown.text, `toolhost doctor — roots: ${base.path}/${escaped}\n`);
    assert(/^(ok {2}|FAIL) {2}/m.test(shown.text), shown.text);
  });
  await t.step("doctor's JSON keeps the value", async () => {
    const shown = await toolhost(["doctor", "--root", root, "--json"]);
    assertNothingRaw(shown);
    // Still JSON, of the same value: the root as it is.
    assertEquals(JSON.parse(new TextDecoder().decode(shown.stdout)).roots, [root]);
  });
});
