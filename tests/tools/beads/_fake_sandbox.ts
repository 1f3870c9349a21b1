/**
 * A fake `Sandbox` (tools/sandbox.ts) for unit tests of the Beads tools: it
 * records what it is asked to run and answers as a test tells it; and bd's
 * JSON as bd's source prints it, indented two spaces: an `Issue`
 * (internal/types/types.go) and an `IssueWithCounts`, the same fields
 * flattened plus the counts (cmd/bd/list.go, cmd/bd/ready.go).
 *
 * @module
 */

import { toolContext } from "../../_helpers.ts";
import { Registry } from "../../../tools/registry.ts";
import { BEADS_TOOLS } from "../../../tools/beads/mod.ts";
import type { Sandbox, SandboxRequest } from "../../../tools/sandbox.ts";
import { type Answer, ScriptedSandbox, withSandbox } from "../_sandboxes.ts";
import type { ToolResult } from "../../../tools/tool.ts";

export type { Answer } from "../_sandboxes.ts";

/** A scripted sandbox with bd on its PATH, that also lists the bd runs it was asked for. */
export class FakeSandbox extends ScriptedSandbox {
  /**
   * A fake sandbox.
   *
   * @param answer What to answer for each request.
   */
  constructor(answer: (request: SandboxRequest) => Answer) {
    super(answer, { bd: "/usr/local/bin/bd" });
  }

  /**
   * The argv of each bd run (the workspace checks left out).
   *
   * @returns Each run's argv, in order.
   */
  bdRuns(): string[][] {
    return this.requests.filter((r) => r.argv[0] === "bd").map((r) => [...r.argv]);
  }
}

/**
 * A sandbox over a workspace (or none): `test -d .beads` answers, bd answers as told.
 *
 * @param hasBeads Whether the primary root has a `.beads/` directory.
 * @param bd What bd answers, by its argv.
 * @returns The sandbox.
 */
export function workspace(hasBeads: boolean, bd: (argv: readonly string[]) => Answer): FakeSandbox {
  return new FakeSandbox((request) => {
    if (request.argv[0] === "test") return { exitCode: hasBeads ? 0 : 1 };
    if (request.argv[0] === "bd") return bd(request.argv);
    return { exitCode: 127, stderr: `${request.argv[0]}: not found` };
  });
}

/**
 * Call a Beads tool as the registry does (input validated), with a sandbox.
 *
 * @param root The primary root.
 * @param sandbox The sandbox the host would give.
 * @param name The tool.
 * @param args Its arguments.
 * @returns The result.
 */
export async function call(
  root: string,
  sandbox: Sandbox,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  const ctx = withSandbox(await toolContext(root), sandbox);
  return await new Registry(BEADS_TOOLS).call(name, args, ctx);
}

/**
 * An issue as bd prints it (`types.Issue`).
 *
 * @param id Its id.
 * @param title Its title.
 * @param status Its status.
 * @param extra Other fields, or different ones.
 * @returns The issue's JSON object.
 */
export function issue(
  id: string,
  title: string,
  status: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    title,
    description: `About ${title}`,
    status,
    priority: 2,
    issue_type: "task",
    created_at: "2026-03-01T10:00:00Z",
    created_by: "dev",
    updated_at: "2026-03-01T10:00:00Z",
    ...extra,
  };
}

/**
 * An issue as `list` and `ready` print it (`types.IssueWithCounts`).
 *
 * @param item The issue.
 * @returns The issue with its counts.
 */
export function withCounts(item: Record<string, unknown>): Record<string, unknown> {
  return { ...item, dependency_count: 0, dependent_count: 1, comment_count: 0 };
}

/**
 * JSON as bd prints it (Go's encoder with a two-space indent, and a newline).
 *
 * @param value The value.
 * @returns The text.
 */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
