/**
 * The `.mcp.json` side of efferent copy: the programs a launcher must allow,
 * and the environment switch.
 */

import { assert, assertEquals, assertFalse } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { sinkCommands } from "../../sinks/peers.ts";
import { efferentCopyEnabled, selfEntry } from "../../host/config/efferent_env.ts";

Deno.test("sinkCommands gives the absolute programs of the sink peers, never this host's", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/bin`);
  await Deno.mkdir(`${dir.path}/project/scripts`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/bin/observer`, "#!/bin/sh\n", { mode: 0o755 });
  await Deno.symlink(`${dir.path}/bin/observer`, `${dir.path}/bin/observer-link`);
  await Deno.writeTextFile(`${dir.path}/project/scripts/sink.sh`, "#!/bin/sh\n");
  // A team's committed entry names `toolhost`, found on the PATH: the checkout's bin/toolhost.
  const bin = new URL("../../bin/toolhost", import.meta.url).pathname;
  await Deno.symlink(bin, `${dir.path}/bin/toolhost-team`);
  const wrapper = `${dir.path}/project/scripts/self.sh`;
  await Deno.writeTextFile(wrapper, `#!/bin/sh\n# toolhost-self-ref-target: ${selfEntry()}\n`);
  await Deno.writeTextFile(
    `${dir.path}/project/.mcp.json`,
    JSON.stringify({
      mcpServers: {
        bare: { command: "observer-link", args: ["--stdio"] },
        relative: { command: "./scripts/sink.sh" },
        deno: { command: Deno.execPath(), args: ["run", "sink.ts"] },
        self: { command: Deno.execPath(), args: ["run", "-A", selfEntry(), "serve"] },
        wrapped: { command: wrapper },
        team: { command: "toolhost-team", args: ["start", "--root", "."] },
        missing: { command: "no-such-program-here" },
        http: { type: "http", url: "http://127.0.0.1:9/mcp" },
      },
    }),
  );
  const run = await sinkCommands(`${dir.path}/project/.mcp.json`, selfEntry(), {
    cwd: `${dir.path}/project`,
    searchPath: `relative/ignored:${dir.path}/bin`,
  });
  assertEquals(
    run.sort(),
    [
      `${dir.path}/bin/observer`,
      `${dir.path}/bin/observer-link`,
      Deno.execPath(),
      `${dir.path}/project/scripts/sink.sh`,
    ].sort(),
  );
  assert(run.every((each) => each.startsWith("/")));
  assertFalse(run.includes(wrapper), "a wrapper that starts this host is not allowed to run");
  assertEquals(
    await sinkCommands(`${dir.path}/none.json`, selfEntry(), { cwd: dir.path }),
    [],
    "no .mcp.json, nothing to run",
  );
});

Deno.test("efferent copy is off unless EFFERENT_COPY_ENABLE=1, and EFFERENT_COPY_DISABLE=1 wins", () => {
  const saved = ["EFFERENT_COPY_ENABLE", "EFFERENT_COPY_DISABLE"].map((name) =>
    [name, Deno.env.get(name)] as const
  );
  try {
    Deno.env.delete("EFFERENT_COPY_ENABLE");
    Deno.env.delete("EFFERENT_COPY_DISABLE");
    assertFalse(efferentCopyEnabled());
    Deno.env.set("EFFERENT_COPY_ENABLE", "1");
    assert(efferentCopyEnabled());
    Deno.env.set("EFFERENT_COPY_DISABLE", "1");
    assertFalse(efferentCopyEnabled());
    Deno.env.set("EFFERENT_COPY_DISABLE", "0");
    assert(efferentCopyEnabled());
    Deno.env.set("EFFERENT_COPY_ENABLE", "yes");
    assertFalse(efferentCopyEnabled(), "only 1 turns it on");
    assert(efferentCopyEnabled(true), "an explicit choice wins");
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
});
