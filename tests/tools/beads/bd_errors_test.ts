/**
 * Unit tests of the Beads tools against a fake `Sandbox` (`_fake_sandbox.ts`):
 * `bd_update`, input validation, and how bd's failures come back: `{"error":
 * …}` on stderr under `--json` (cmd/bd/output.go), or plain text.
 *
 * @module
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { call, FakeSandbox, issue, json, workspace } from "./_fake_sandbox.ts";

Deno.test("bd_update passes the status as --status= and the id after --", async (t) => {
  await using root = await tempDir();
  await t.step("the updated bead is rendered", async () => {
    const updated = [issue("bd-a1b2", "Fix the parser", "in_progress")];
    const sandbox = workspace(true, () => ({ stdout: json(updated) }));
    const result = await call(root.path, sandbox, "bd_update", {
      bead_id: "bd-a1b2",
      status: "in_progress",
    });
    assertEquals(sandbox.bdRuns(), [
      ["bd", "update", "--json", "--status=in_progress", "--", "bd-a1b2"],
    ]);
    assertEquals(textOf(result), "Updated ID: bd-a1b2, Status: in_progress, Title: Fix the parser");
  });
  await t.step("an id bd does not know is not_found (bd 1.x: exit 1)", async () => {
    const sandbox = workspace(true, () => ({ exitCode: 1, stderr: "Issue bd-zzzz not found\n" }));
    const result = await call(root.path, sandbox, "bd_update", {
      bead_id: "bd-zzzz",
      status: "closed",
    });
    assertEquals(result.isError, true);
    assertMatch(
      textOf(result),
      /^not_found: bd update failed \(exit 1\): Issue bd-zzzz not found$/,
    );
  });
  await t.step("an id bd does not know is not_found (bd 0.x: exit 0, no issue)", async () => {
    for (const stdout of ["", "null\n", "[]\n"]) {
      const sandbox = workspace(true, () => ({ stdout }));
      const result = await call(root.path, sandbox, "bd_update", {
        bead_id: "bd-zzzz",
        status: "closed",
      });
      assertEquals(textOf(result), `not_found: Cannot update "bd-zzzz": bd found no such bead`);
    }
  });
  await t.step("a status bd refuses comes back as invalid_argument with bd's words", async () => {
    const stderr = json({
      error:
        "invalid status \"doing\" (built-in: open, in_progress, blocked, deferred, closed, pinned, hooked; or configure custom statuses via 'bd config set status.custom')",
      schema_version: 1,
    });
    const sandbox = workspace(true, () => ({ exitCode: 1, stderr }));
    const result = await call(root.path, sandbox, "bd_update", {
      bead_id: "bd-a1b2",
      status: "doing",
    });
    assertMatch(
      textOf(result),
      /^invalid_argument: bd update failed \(exit 1\): invalid status "doing"/,
    );
  });
});

Deno.test("bd tools refuse input that could become an option or break bd's rules", async () => {
  await using root = await tempDir();
  const sandbox = workspace(true, () => ({ stdout: "[]" }));
  const refused: Array<[string, Record<string, unknown>]> = [
    ["bd_update", { bead_id: "-x", status: "closed" }],
    ["bd_update", { bead_id: "--all", status: "closed" }],
    ["bd_update", { bead_id: "bd-1 bd-2", status: "closed" }],
    ["bd_update", { bead_id: "bd-1", status: "--force" }],
    ["bd_update", { bead_id: "bd-1", status: "Closed" }],
    ["bd_update", { bead_id: "bd-1", status: "" }],
    ["bd_create", { title: "" }],
    ["bd_create", { title: "   " }],
    ["bd_create", { title: "two\nlines" }],
    ["bd_create", { title: "x".repeat(501) }],
    ["bd_create", { title: "ok", description: "-" }],
    ["bd_create", { title: "ok", description: "nul\0here" }],
  ];
  for (const [name, args] of refused) {
    const result = await call(root.path, sandbox, name, args);
    assertEquals(result.isError, true, `${name} ${JSON.stringify(args)}`);
    assertMatch(textOf(result), /^invalid_argument: /);
  }
  assertEquals(sandbox.bdRuns(), [], "bd never ran on refused input");
  const longest = await call(
    root.path,
    workspace(true, () => ({
      stdout: json(issue("bd-1", "x".repeat(500), "open")),
    })),
    "bd_create",
    { title: "x".repeat(500) },
  );
  assertFalse(longest.isError, "bd's own limit, 500 characters, is allowed");
});

Deno.test("bd failures, timeouts and output that is no JSON are clear errors", async (t) => {
  await using root = await tempDir();
  await t.step("a timeout says so", async () => {
    const sandbox = workspace(
      true,
      () => ({ timedOut: true, exitCode: null, signal: "SIGKILL", durationMs: 60_000 }),
    );
    const result = await call(root.path, sandbox, "bd_list");
    assertMatch(textOf(result), /^timeout: bd list was stopped at its time limit, after 60 s$/);
  });
  await t.step("a plain-text error keeps bd's words, on one line", async () => {
    const stderr = "Error: no beads database found\nHint: run 'bd init' to create a new database\n";
    const result = await call(
      root.path,
      workspace(true, () => ({ exitCode: 1, stderr })),
      "bd_ready",
    );
    assertEquals(
      textOf(result),
      "not_found: bd ready failed (exit 1): no beads database found | Hint: run 'bd init' to create a new database",
    );
  });
  await t.step("a long error is bounded", async () => {
    const stderr = `Error: ${"x".repeat(5000)}`;
    const result = await call(
      root.path,
      workspace(true, () => ({ exitCode: 2, stderr })),
      "bd_list",
    );
    assert(textOf(result).length < 1200, "the message is cut");
    assertMatch(textOf(result), /more characters\)$/);
  });
  await t.step("text where JSON was expected is upstream_error", async () => {
    const stdout = "Created issue: bd-1\n";
    const result = await call(root.path, workspace(true, () => ({ stdout })), "bd_create", {
      title: "t",
    });
    assertMatch(textOf(result), /^upstream_error: bd create printed no JSON: Created issue: bd-1$/);
  });
  await t.step("more JSON than is read whole is too_large", async () => {
    const sandbox = workspace(true, () => ({ stdout: "[", stdoutBytes: 5 * 1024 * 1024 }));
    const result = await call(root.path, sandbox, "bd_list");
    assertMatch(textOf(result), /^too_large: Cannot read bd list: it printed 5242880 bytes/);
  });
  await t.step(
    "a workspace check that cannot run is an internal error, and bd does not run",
    async () => {
      const sandbox = new FakeSandbox(() => ({
        exitCode: 127,
        stderr: "bwrap: execvp test: No such file",
      }));
      const result = await call(root.path, sandbox, "bd_list");
      assertEquals(
        textOf(result),
        `internal_error: Cannot check "${root.path}" for .beads/: the check exited with 127 (bwrap: execvp test: No such file)`,
      );
      assertEquals(sandbox.bdRuns(), []);
    },
  );
});
