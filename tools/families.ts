/**
 * The tool list: every tool family, in the order clients list their tools.
 * A new family is a folder with a `family.ts` and one line here; a new tool
 * in a family is one file and one line in the family's list.
 *
 * @module
 */

import type { ToolFamily } from "./family.ts";
import type { Tool } from "./tool.ts";
import { FILES } from "./files/family.ts";
import { CFAMILY } from "./cfamily/family.ts";
import { TYPESCRIPT } from "./typescript/family.ts";
import { ANALYSIS } from "./analysis/family.ts";
import { PYTHON } from "./python/family.ts";
import { SYMBOLS } from "./symbols/family.ts";
import { OBSERVE } from "./observe/family.ts";
import { TODO } from "./todo/family.ts";
import { SHELL } from "./shell/family.ts";
import { GIT } from "./git/family.ts";
import { BEADS } from "./beads/family.ts";
import { WEB } from "./web/family.ts";

/**
 * Every family, in the order clients list their tools. Those that run in a
 * tool worker come before those that run in the host: the host lists the
 * workers' tools first (`tests/host/providers/list_order_test.ts` holds it).
 */
export const FAMILIES: readonly ToolFamily[] = Object.freeze([
  FILES,
  CFAMILY,
  TYPESCRIPT,
  ANALYSIS,
  PYTHON,
  SYMBOLS,
  OBSERVE,
  TODO,
  SHELL,
  GIT,
  BEADS,
  WEB,
]);

/** The tools of the families that run in one place. */
export interface LoadedTools {
  /** The tools, in list order. */
  readonly tools: readonly Tool[];
  /** Each tool's family name, by tool name. */
  readonly families: Readonly<Record<string, string>>;
}

/**
 * Load the tools of the families that run in one place.
 *
 * @param runs A tool worker, or the host.
 * @returns The tools in list order, and each one's family.
 */
export async function loadFamilies(runs: ToolFamily["runs"]): Promise<LoadedTools> {
  const families = FAMILIES.filter((family) => family.runs === runs);
  const loaded = await Promise.all(families.map((family) => family.load()));
  return Object.freeze({
    tools: Object.freeze(loaded.flat()),
    families: Object.freeze(Object.fromEntries(
      families.flatMap((family, i) => loaded[i]!.map((tool) => [tool.name, family.name])),
    )),
  });
}

/**
 * The family a tool belongs to, from a map the tool's process made.
 *
 * @param name The family's name.
 * @returns Its declaration, or `undefined` (an upstream's tool has none).
 */
export function familyNamed(name: string | undefined): ToolFamily | undefined {
  return FAMILIES.find((family) => family.name === name);
}
