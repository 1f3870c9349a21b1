/**
 * Small pieces `createHost` wires together: the log's write hints,
 * directives applied to the anchors, and what the host does once started
 * (name collisions said, the symbol index prepared).
 *
 * @module
 */

import type { ToolDescriptor } from "../tools/registry.ts";
import type { Directive } from "../tools/directives.ts";
import type { HostLogger } from "./logger.ts";
import type { Dispatcher } from "./providers/mod.ts";
import type { AnchorStore } from "./state/mod.ts";
import type { WorkerPool } from "./workers/mod.ts";

/**
 * Whether a tool may change things, for the log's caps (which keep such
 * calls longest); a local tool's hints count whether its family is listed
 * yet or not. Asked at every call: kept until the tool list changes.
 */
export function writeHints(
  tools: () => ToolDescriptor[],
  toolsChanged: Set<() => void>,
): (tool: string) => boolean {
  const hints = new Map<string, boolean>();
  toolsChanged.add(() => hints.clear());
  return (tool) => {
    let hint = hints.get(tool);
    if (hint === undefined) {
      hint = tools().find((each) => each.name === tool)?.annotations.readOnlyHint !== true;
      hints.set(tool, hint);
    }
    return hint;
  };
}

/** The host's part of directives: anchors are kept (the todo list is an anchor too). */
export function applyDirectives(anchors: AnchorStore, directives: Directive[]): void {
  const anchored = new Set<string>();
  for (const directive of directives) {
    if (directive.kind === "ContextAnchor") {
      anchored.add(directive.key);
      // A failed save is logged by the anchor store's file; the anchor stays set in memory.
      void anchors.set(directive.key, directive.content);
    }
  }
  for (const directive of directives) {
    if (directive.kind === "TodoStateChanged" && !anchored.has("todo_state")) {
      void anchors.set("todo_state", directive.formatted_state);
    }
  }
}

/** Two providers offering one name: the first wins; say so once at start-up. */
function reportCollisions(dispatcher: Dispatcher, logger: HostLogger): void {
  const seen = new Set<string>();
  for (const tool of dispatcher.list()) {
    if (seen.has(tool.name)) {
      logger.log("warn", `Two tools are named "${tool.name}"; the first one listed serves calls`);
    }
    seen.add(tool.name);
  }
}

/**
 * Once the host's parts are made: say which tool names collide, and have the
 * first worker bring the symbol index up to date in the background (after
 * the start, never delaying it).
 *
 * @param dispatcher The dispatcher.
 * @param pool The worker pool.
 * @param logger Where to say it.
 */
export function started(dispatcher: Dispatcher, pool: WorkerPool, logger: HostLogger): void {
  reportCollisions(dispatcher, logger);
  pool.prepareSymbols();
}
