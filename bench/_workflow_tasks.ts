/**
 * The seven tasks of the workflow bench, what an agent answers for each, and
 * the few decisions both scripted agents make the same way (which text an
 * edit replaces, how a moved module's imports change) so that the servers,
 * not the agents' reasoning, make the difference.
 *
 * @module
 */

import { PACKAGE } from "./_workflow_project.ts";

/** The tasks, in the order an agent performs them. */
export const TASKS = [
  "layout",
  "find definitions",
  "read functions",
  "edit",
  "find usages",
  "rename across 11 files",
  "move files",
] as const;

/** One of the tasks. */
export type TaskName = typeof TASKS[number];

/** A text change inside one function: the first line containing `find` gets `replace` for it. */
export interface Change {
  /** The function, as a dotted name. */
  function: string;
  /** Text on the line to change. */
  find: string;
  /** What it becomes. */
  replace: string;
}

/** A symbol named by the file that defines it and its dotted name there. */
export interface Target {
  /** Relative to the project. */
  path: string;
  /** The dotted name. */
  name: string;
}

/** Modules moved from the package into a sub-package. */
export interface MoveSpec {
  /** The sub-package's folder name. */
  folder: string;
  /** The modules' names (without `.py`). */
  modules: readonly string[];
}

/** What the workflow asks for. */
export const WORKFLOW = {
  definitions: ["Finalize", "_run_finalizers", "ApplyResult"],
  functions: ["Finalize.__call__", "_run_finalizers", "ApplyResult.get"],
  change: {
    function: "ApplyResult.get",
    find: "raise TimeoutError",
    replace: 'raise TimeoutError(f"no result within {timeout} seconds")',
  } satisfies Change,
  symbol: { path: `${PACKAGE}/util.py`, name: "Finalize" } satisfies Target,
  newName: "Finalizer",
  move: {
    folder: "popen",
    modules: ["popen_fork", "popen_forkserver", "popen_spawn_posix", "popen_spawn_win32"],
  } satisfies MoveSpec,
} as const;

/** A definition found: where its `class`/`def` line is. */
export interface Definition {
  /** The name. */
  name: string;
  /** Relative to the project. */
  path: string;
  /** 1-based line of `class`/`def`. */
  line: number;
}

/** A function's source as the agent read it. */
export interface FunctionText {
  /** The dotted name. */
  name: string;
  /** Relative to the project. */
  path: string;
  /** Its source, from its first line (decorators) to its last. */
  text: string;
}

/** A line that uses a symbol. */
export interface Site {
  /** Relative to the project. */
  path: string;
  /** 1-based. */
  line: number;
}

/** What a scripted agent does for each task, with its server's tools only. */
export interface WorkflowAgent {
  /** The server's name in the tables. */
  readonly label: string;
  /** Called as each task starts (an agent that forgets between tasks does it here). */
  startTask?(): void;
  /**
   * Task 1: see the project's layout.
   *
   * @returns What the model saw.
   */
  layout(): Promise<string>;
  /**
   * Task 2: find where top-level names are defined.
   *
   * @param names The names.
   * @returns Each definition found.
   */
  definitions(names: readonly string[]): Promise<Definition[]>;
  /**
   * Task 3: read functions.
   *
   * @param wanted Each function's dotted name and the file task 2 found it in.
   * @returns Their source as read.
   */
  readFunctions(wanted: readonly Target[]): Promise<FunctionText[]>;
  /**
   * Task 4: make a change inside a function it has read.
   *
   * @param fn The function as read in task 3.
   * @param change The change.
   */
  edit(fn: FunctionText, change: Change): Promise<void>;
  /**
   * Task 5: find the lines that use a symbol.
   *
   * @param target The symbol.
   * @returns The lines.
   */
  usages(target: Target): Promise<Site[]>;
  /**
   * Task 6: rename the symbol everywhere it is used.
   *
   * @param target The symbol.
   * @param newName Its new name.
   * @param sites What task 5 found.
   */
  rename(target: Target, newName: string, sites: readonly Site[]): Promise<void>;
  /**
   * Task 7: move modules into a sub-package and fix the imports.
   *
   * @param spec The move.
   */
  move(spec: MoveSpec): Promise<void>;
}

/**
 * The exact text an edit replaces in a function the agent has read: from the
 * function's first line to the changed line (unique in the file), and what
 * it becomes.
 *
 * @param fn The function as read.
 * @param change The change.
 * @returns The old and new text.
 * @throws {Error} When the function has no such line.
 */
export function editStrings(fn: FunctionText, change: Change): { old: string; new: string } {
  const lines = fn.text.split("\n");
  const at = lines.findIndex((line) => line.includes(change.find));
  if (at === -1) throw new Error(`${fn.name} has no line with "${change.find}"`);
  const old = lines.slice(0, at + 1).join("\n");
  return { old, new: old.replace(change.find, change.replace) };
}

/**
 * An import line after a move, or the same line when the move leaves it be.
 * In a moved module relative imports gain a level, except `from . import m`
 * of modules moved with it; elsewhere `from .m import x` of a moved module
 * becomes `from .folder.m import x`.
 *
 * @param line The line.
 * @param inMoved Whether the line is in a moved module.
 * @param spec The move.
 * @returns The line as it must read after the move.
 */
export function movedImportLine(line: string, inMoved: boolean, spec: MoveSpec): string {
  const match = /^(\s*)from \.(\w*) import (.+)$/.exec(line);
  if (!match) return line;
  const [, indent, module, names] = match;
  if (inMoved) {
    const siblings = module === "" &&
      names!.split(",").every((name) => spec.modules.includes(name.trim()));
    return siblings ? line : line.replace("from .", "from ..");
  }
  return spec.modules.includes(module!)
    ? `${indent}from .${spec.folder}.${module} import ${names}`
    : line;
}
