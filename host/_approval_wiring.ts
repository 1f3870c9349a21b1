/**
 * Approvals as `createHost` wires them: each tool's classes from what the
 * host knows of it, the audit file, redacted arguments, and the events.
 *
 * @module
 */

import { Redactor } from "../sinks/redact.ts";
import type { ToolDescriptor } from "../tools/registry.ts";
import { familyNamed } from "../tools/families.ts";
import { HOST_TOOL_FAMILIES } from "../tools/host_tools.ts";
import { type ApprovalClass, type HostConfig } from "./config/mod.ts";
import { Approvals, AuditFile, type HookEvents } from "./approvals/mod.ts";
import type { HostLogger } from "./logger.ts";

/** What approvals need of the host. */
export interface ApprovalParts {
  /** Every tool as listed now. */
  tools: () => ToolDescriptor[];
  /** The upstream servers. */
  upstreams: readonly { list(): ToolDescriptor[] }[];
  /** Where asks and answers go. */
  events: HookEvents;
  /** Told when the tool list changes (classes are kept until then). */
  toolsChanged: Set<() => void>;
  /** The clock. */
  now: () => Date;
}

/**
 * The host's approvals, or null when no rule is configured (then no call waits, and nothing is added to a call's path).
 *
 * @param config The configuration (its `approvals` rules).
 * @param logger Where a failed audit write is said.
 * @param parts The tools, the events, the clock.
 * @returns The approvals and their audit file, or null.
 */
export function approvalsFor(
  config: HostConfig,
  logger: HostLogger,
  parts: ApprovalParts,
): { approvals: Approvals; audit: AuditFile } | null {
  if (config.approvals.length === 0) return null;
  const audit = new AuditFile(config.policy.stateDir, logger);
  const redactor = new Redactor(config.log.redactKeys ?? []);
  const approvals = new Approvals(config.approvals, {
    classify: classifier(parts),
    audit: (line) => audit.append(line),
    onEvent: (type, data) => parts.events.emit(type, data),
    redact: (args) => redactor.apply(args),
    now: parts.now,
  });
  return { approvals, audit };
}

/**
 * A tool's classes: `write` when it is not read-only, `exec` when its family
 * runs programs, `net` when it reaches beyond the roots (open world), and
 * `upstream` for an upstream server's tool. Kept until the tool list changes.
 */
export function classifier(
  parts: Pick<ApprovalParts, "tools" | "upstreams" | "toolsChanged">,
): (tool: string) => readonly ApprovalClass[] {
  const known = new Map<string, readonly ApprovalClass[]>();
  parts.toolsChanged.add(() => known.clear());
  return (tool) => {
    let classes = known.get(tool);
    if (classes === undefined) {
      classes = classesOf(tool, parts);
      known.set(tool, classes);
    }
    return classes;
  };
}

/**
 * A tool's classes, from its descriptor, its family and who serves it.
 *
 * @param tool The tool.
 * @param parts The tools listed and the upstream servers.
 * @returns Its classes.
 */
export function classesOf(
  tool: string,
  parts: Pick<ApprovalParts, "tools" | "upstreams">,
): readonly ApprovalClass[] {
  const descriptor = parts.tools().find((each) => each.name === tool);
  const upstream = parts.upstreams.some((each) => each.list().some((t) => t.name === tool));
  const classes: ApprovalClass[] = [];
  // A tool not found is treated as one that writes: a rule on writes never misses it.
  if (descriptor?.annotations.readOnlyHint !== true) classes.push("write");
  // A family that runs programs declares them (the shell's list is empty: it runs any).
  if (familyNamed(HOST_TOOL_FAMILIES[tool])?.runsPrograms !== undefined) classes.push("exec");
  if (!upstream && descriptor?.annotations.openWorldHint === true) classes.push("net");
  if (upstream) classes.push("upstream");
  return Object.freeze(classes);
}
