/**
 * Unit tests of the Beads tools against a fake `Sandbox` (`_fake_sandbox.ts`):
 * the argv they build, the workspace check, and the rendering of bd's JSON,
 * shaped as bd's source prints it: `IssueWithCounts` arrays for `list` and
 * `ready` (cmd/bd/list.go, cmd/bd/ready.go, internal/types/types.go), one
 * `Issue` for `create` (cmd/bd/create.go), an array of `Issue` for `update`
 * (cmd/bd/update.go). The real bd runs in `beads_blackbox_test.ts`, where it
 * is installed.
 *
 * @module
 */

import { assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { BD_ENV } from "../../../tools/beads/_bd.ts";
import { call, issue, json, withCounts, workspace } from "./_fake_sandbox.ts";

Deno.test("bd_list runs bd list --json in the primary root and renders the seed's rows", async () => {
  await using root = await tempDir();
  const listed = [
    withCounts(issue("bd-a1b2", "Fix the parser", "open")),
    withCounts(
      issue("bd-c3d4", "Write the docs\nfor beads", "in_progress", { issue_type: "chore" }),
    ),
  ];
  const sandbox = workspace(true, () => ({ stdout: json(listed) }));
  const result = await call(root.path, sandbox, "bd_list");
  assertFalse(result.isError, textOf(result));
  assertEquals(
    textOf(result),
    "ID: bd-a1b2, Status: open, Title: Fix the parser\n" +
      "ID: bd-c3d4, Status: in_progress, Title: Write the docs for beads",
  );
  assertEquals(result.structuredContent, {
    beads: [
      { id: "bd-a1b2", status: "open", title: "Fix the parser", priority: 2, issue_type: "task" },
      {
        id: "bd-c3d4",
        status: "in_progress",
        title: "Write the docs\nfor beads",
        priority: 2,
        issue_type: "chore",
      },
    ],
    truncated: false,
  });
  const [probe, bd] = sandbox.requests;
  assertEquals(probe?.argv, ["test", "-d", ".beads"]);
  assertEquals(probe?.cwd, root.path);
  assertEquals(bd?.argv, ["bd", "list", "--json", "--limit=101"]);
  assertEquals(bd?.cwd, root.path);
  assertEquals(bd?.access, "write");
  assertEquals(bd?.tool, "bd_list");
  assertEquals(bd?.env, BD_ENV);
  assertEquals(bd?.timeoutMs, 60_000, "bd has a command's default time limit (shell.timeoutS)");
  assertEquals(bd?.stdin, undefined, "bd gets no input: it can never wait on a prompt");
});

Deno.test("bd_list shows at most 100 beads and says when bd has more", async (t) => {
  await using root = await tempDir();
  const many = Array.from(
    { length: 101 },
    (_, i) => withCounts(issue(`bd-${i}`, `Task ${i}`, "open")),
  );
  await t.step("a full page is cut to 100 rows with a note", async () => {
    const result = await call(
      root.path,
      workspace(true, () => ({ stdout: json(many) })),
      "bd_list",
    );
    const lines = textOf(result).split("\n");
    assertEquals(lines.length, 101);
    assertEquals(lines[99], "ID: bd-99, Status: open, Title: Task 99");
    assertMatch(lines[100]!, /the first 100 beads are shown; bd has more/);
    assertEquals(result.structuredContent?.truncated, true);
  });
  await t.step("no beads is said plainly (bd 0.x prints a Go nil list as null)", async () => {
    for (const stdout of ["[]\n", "null\n"]) {
      const result = await call(root.path, workspace(true, () => ({ stdout })), "bd_list");
      assertEquals(textOf(result), "(no beads)");
    }
  });
  await t.step("bd's JSON envelope (BD_JSON_ENVELOPE=1) is unwrapped", async () => {
    const stdout = json({ schema_version: 1, data: many.slice(0, 1) });
    const result = await call(root.path, workspace(true, () => ({ stdout })), "bd_list");
    assertEquals(textOf(result), "ID: bd-0, Status: open, Title: Task 0");
  });
});

Deno.test("every bd tool answers not_found: no active workspace, and bd never runs, without .beads/", async () => {
  await using root = await tempDir();
  const calls: Array<[string, Record<string, unknown>]> = [
    ["bd_list", {}],
    ["bd_ready", {}],
    ["bd_create", { title: "A task" }],
    ["bd_update", { bead_id: "bd-a1b2", status: "closed" }],
  ];
  for (const [name, args] of calls) {
    const sandbox = workspace(false, () => ({ stdout: "[]" }));
    const result = await call(root.path, sandbox, name, args);
    assertEquals(result.isError, true, name);
    assertEquals(
      textOf(result),
      `not_found: no active workspace to run beads tools (no .beads/ directory in "${root.path}")`,
    );
    assertEquals(sandbox.bdRuns(), [], `${name} did not run bd`);
  }
});

Deno.test("bd_ready runs bd ready --json and renders the ready beads", async () => {
  await using root = await tempDir();
  const ready = [withCounts(issue("bd-e5f6", "Ship it", "open"))];
  const sandbox = workspace(true, () => ({ stdout: json(ready) }));
  const result = await call(root.path, sandbox, "bd_ready");
  assertEquals(textOf(result), "ID: bd-e5f6, Status: open, Title: Ship it");
  assertEquals(sandbox.bdRuns(), [["bd", "ready", "--json", "--limit=101"]]);
  const none = await call(root.path, workspace(true, () => ({ stdout: "[]" })), "bd_ready");
  assertEquals(textOf(none), "(no beads are ready)");
});

Deno.test("bd_create passes the title after -- and the description as --description=", async (t) => {
  await using root = await tempDir();
  await t.step("a title and description that look like options stay values", async () => {
    const created = issue("bd-9z8y", "--all of it", "open");
    const sandbox = workspace(true, () => ({ stdout: json(created) }));
    const result = await call(root.path, sandbox, "bd_create", {
      title: "--all of it",
      description: "-p 0 --force",
    });
    assertFalse(result.isError, textOf(result));
    assertEquals(sandbox.bdRuns(), [
      ["bd", "create", "--json", "--description=-p 0 --force", "--", "--all of it"],
    ]);
    assertEquals(textOf(result), "Created ID: bd-9z8y, Status: open, Title: --all of it");
    assertEquals(result.structuredContent?.bead, {
      id: "bd-9z8y",
      status: "open",
      title: "--all of it",
      priority: 2,
      issue_type: "task",
    });
  });
  await t.step("without a description no --description is given", async () => {
    const sandbox = workspace(true, () => ({ stdout: json(issue("bd-1", "Plain", "open")) }));
    await call(root.path, sandbox, "bd_create", { title: "Plain" });
    assertEquals(sandbox.bdRuns(), [["bd", "create", "--json", "--", "Plain"]]);
  });
});
