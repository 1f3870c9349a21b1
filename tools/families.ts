/**
 * The tool list: every tool family, in the order clients list their tools.
 * A new family is a folder with a `family.ts`, one line here and one line in
 * `mod.ts` (a tool worker's) or `host_tools.ts` (the host's); a new tool in a
 * family is one file and one line in the family's list. The declarations
 * hold no tool code, so the launcher reads them without loading any tool.
 * A family that reads a language declares its grammars in its `family.ts`
 * and its {@linkcode LanguageReader} in its code (`mod.ts`): the tools that
 * read every language are handed it here, by {@linkcode toolsOf}.
 *
 * @module
 */

import type { FamilyCode, LanguageReader, ToolFamily } from "./family.ts";
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
  /** The languages those families read, in list order. */
  readonly languages: readonly LanguageReader[];
}

/**
 * The tools of the families that run in one place, in list order: each
 * family's tools come from the module that lists them (`mod.ts` for a tool
 * worker's, `host_tools.ts` for the host's), which imports their code
 * statically, so that a process that needs only the declarations (the
 * launcher) never reads tool code. A family that reads every language
 * makes its tools from the languages of all the others given.
 *
 * @param runs A tool worker, or the host.
 * @param byFamily Each of those families' tools or code, by family name.
 * @returns The tools in list order, and each one's family.
 * @throws {Error} When a family that runs there has no tools given, or a name is no such family.
 */
export function toolsOf(
  runs: ToolFamily["runs"],
  byFamily: Readonly<Record<string, readonly Tool[] | FamilyCode>>,
): LoadedTools {
  const families = FAMILIES.filter((family) => family.runs === runs);
  const wanted = new Set(families.map((family) => family.name));
  const stray = Object.keys(byFamily).filter((name) => !wanted.has(name));
  const missing = [...wanted].filter((name) => !(name in byFamily));
  if (stray.length > 0 || missing.length > 0) {
    throw new Error(
      `Cannot list the ${runs}'s tools: ${
        [
          ...missing.map((name) => `no tools for family ${name}`),
          ...stray.map((name) => `${name} is no ${runs} family`),
        ]
          .join("; ")
      }`,
    );
  }
  const code = families.map((family) => codeOf(byFamily[family.name]!));
  const languages = Object.freeze(code.flatMap((each) => each.languages ?? []));
  const lists = code.map(({ tools }) => typeof tools === "function" ? tools(languages) : tools);
  return Object.freeze({
    tools: Object.freeze(lists.flat()),
    families: Object.freeze(Object.fromEntries(
      families.flatMap((family, i) => lists[i]!.map((tool) => [tool.name, family.name])),
    )),
    languages,
  });
}

/** A family's code, from its tools alone or as the family gives it. */
function codeOf(given: readonly Tool[] | FamilyCode): FamilyCode {
  return "tools" in given ? given : { tools: given };
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
