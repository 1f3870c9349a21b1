/**
 * One client's rights and limits on their own: which tools its rights let it
 * call (and why not), its calls in a sliding minute and at once, and the
 * list of clients read again when it changes (a revocation holds at once; a
 * record for another workspace, or a list inside a root, is no client).
 */

import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { ClientAccess, ClientDirectory } from "../../../host/clients/access.ts";
import { type ClientRights, FULL_RIGHTS, refusalOf } from "../../../host/clients/rights.ts";
import { tokenHash, writeClients } from "../../../host/clients/store.ts";
import type { ToolResult } from "../../../tools/tool.ts";

const rights = (change: Partial<ClientRights>): ClientRights => ({ ...FULL_RIGHTS, ...change });

Deno.test("rights: read-only, classes, tool globs and roots each refuse with a reason", () => {
  const read = { classes: [] } as const;
  const write = { classes: ["write"] } as const;
  assertEquals(refusalOf(rights({ readOnly: true }), "read_file", read), null);
  assertEquals(refusalOf(rights({ readOnly: true }), "write_file", write), "it is read-only");
  const noExec = rights({ classes: { allow: [], deny: ["exec"] } });
  assertMatch(refusalOf(noExec, "run_shell", { classes: ["write", "exec"] })!, /exec/);
  const onlyPy = rights({ tools: { allow: ["py_*"], deny: ["py_move_def"] } });
  assertEquals(refusalOf(onlyPy, "py_get_skeleton", read), null);
  assertMatch(refusalOf(onlyPy, "read_file", read)!, /do not list/);
  assertMatch(refusalOf(onlyPy, "py_move_def", write)!, /deny/);
  const limited = rights({ roots: ["/srv/a"] });
  assertMatch(refusalOf(limited, "fs__read", { classes: ["upstream"] })!, /upstream/);
  assertMatch(
    refusalOf(limited, "read_interactions", { classes: [], family: "observe" })!,
    /every root/,
  );
  assertEquals(refusalOf(limited, "read_file", { classes: [], family: "files" }), null);
});

Deno.test("access: the calls of the last minute and the calls running are limited", () => {
  const client = new ClientAccess(
    "busy",
    rights({ callsPerMinute: 3, concurrent: 2 }),
    "0".repeat(64),
  );
  const released: Array<() => void> = [];
  const admit = (now: number) => {
    const admitted = client.admit(now);
    if ("release" in admitted) released.push(admitted.release);
    return admitted;
  };
  assert("release" in admit(0));
  assert("release" in admit(1_000));
  const third = admit(2_000) as { refusal: ToolResult };
  assertMatch(textOf(third.refusal), /^rate_limited: .* 2 calls running/);
  released.shift()!();
  released.shift()!();
  assert("release" in admit(3_000));
  const fourth = admit(4_000) as { refusal: ToolResult };
  assertMatch(
    textOf(fourth.refusal),
    /made 3 calls in the last minute, its limit; try again in 56 s/,
  );
  released.shift()!();
  // A minute after the first call, its place in the window is free again.
  assert("release" in admit(60_001));
});

Deno.test("directory: a token is its client's while the list holds it, in its workspace only", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/clients.json`;
  const record = async (name: string, token: string, workspace = "/srv/a") => ({
    name,
    workspace,
    sha256: await tokenHash(token),
    rights: rights({ readOnly: true }),
    createdAt: new Date().toISOString(),
  });
  const reviewer = await record("reviewer", "t-reviewer");
  const elsewhere = await record("other", "t-other", "/srv/b");
  await writeClients(store, () => [reviewer, elsewhere]);
  const directory = new ClientDirectory({
    store,
    workspace: "/srv/a",
    roots: ["/srv/a"],
    token: "own-token",
    tokenSha256: await tokenHash("own-token"),
  });
  assertEquals((await directory.authenticate("own-token"))?.name, "default");
  assertEquals((await directory.authenticate("t-reviewer"))?.rights.readOnly, true);
  assertEquals(await directory.authenticate("t-other"), null);
  assertEquals(await directory.authenticate("guess"), null);
  await writeClients(store, () => []);
  assertEquals(await directory.authenticate("t-reviewer"), null);
  const inside = new ClientDirectory({
    store,
    workspace: "/srv/a",
    roots: [dir.path],
    token: "own-token",
    tokenSha256: await tokenHash("own-token"),
  });
  await writeClients(store, () => [reviewer]);
  assertEquals(await inside.authenticate("t-reviewer"), null, "a list inside a root");
});
