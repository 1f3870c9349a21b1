/**
 * The library's documentation holds: `deno doc --lint mod.ts` finds no
 * error — every public symbol has a description, and no public type names
 * one that is not exported (members that are the host's own wiring are
 * tagged `@internal`).
 */
import { assertEquals } from "./_assert.ts";

const REPO = new URL("../", import.meta.url);

Deno.test("deno doc --lint mod.ts finds no error", async () => {
  const { code, stderr, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", "mod.ts"],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const said = new TextDecoder().decode(stderr);
  // The diagnostics, one line each (`error[private-type-ref]: …` and the place after it).
  const errors = said.split("\n").filter((line) => /^error|^\s*--> /.test(line));
  assertEquals(errors, [], said);
  assertEquals(code, 0, `${said}\n${new TextDecoder().decode(stdout).slice(0, 2000)}`);
});
