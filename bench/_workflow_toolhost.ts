/**
 * The workflow bench's agent for toolhost: what a competent agent does with
 * its tools (get_tree, grep, py_get_definition, edit_file, find_usages,
 * rename_symbol, create_directory, write_file, move_file). It reads only
 * what the tools return and builds every edit from that.
 *
 * @module
 */

import type { MeteredClient, Reply } from "./_workflow_meter.ts";
import {
  type Change,
  type Definition,
  editStrings,
  type FunctionText,
  movedImportLine,
  type MoveSpec,
  type Site,
  type Target,
  type WorkflowAgent,
} from "./_workflow_tasks.ts";
import { PACKAGE } from "./_workflow_project.ts";

/** A grep match as the text shows it: `path:line: text`. */
interface Match {
  path: string;
  line: number;
  text: string;
}

/** The matches of a `grep` answer's text. */
function grepMatches(text: string): Match[] {
  return [...text.matchAll(/^(\S+?):(\d+): (.*)$/gm)].map((m) => ({
    path: m[1]!,
    line: Number(m[2]),
    text: m[3]!,
  }));
}

/**
 * The sites an answer names: its `path:line:column [role]` lines (the text a
 * model reads), else objects with a `path` and a `line` in its
 * `structuredContent`.
 *
 * @param reply A `find_usages` reply.
 * @returns Each line named once.
 */
export function sitesOf(reply: Reply): Site[] {
  const found = new Map<string, Site>();
  const add = (path: string, line: number) => found.set(`${path}:${line}`, { path, line });
  for (const m of reply.text.matchAll(/^([\w./-]+\.py):(\d+)(?::\d+)? /gm)) {
    add(m[1]!, Number(m[2]));
  }
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      if (typeof record.path === "string" && typeof record.line === "number") {
        add(record.path, record.line);
      }
      Object.values(record).forEach(walk);
    }
  };
  if (found.size === 0) walk(reply.structured);
  return [...found.values()];
}

/** The longest prefix the names share. */
function commonPrefix(names: readonly string[]): string {
  let prefix = names[0] ?? "";
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** toolhost's agent; see the module doc. */
export class ToolhostAgent implements WorkflowAgent {
  readonly label = "toolhost";
  #client: MeteredClient;

  /**
   * @param client The metered client of a toolhost serving the project as its first root.
   */
  constructor(client: MeteredClient) {
    this.#client = client;
  }

  /** Task 1: `get_tree`. */
  async layout(): Promise<string> {
    return (await this.#client.must("get_tree", { path: "." })).text;
  }

  /** Task 2: one `grep` for the `class`/`def` lines. */
  async definitions(names: readonly string[]): Promise<Definition[]> {
    const pattern = `^(class|def) (${names.join("|")})\\b`;
    const reply = await this.#client.must("grep", { path: PACKAGE, pattern, glob: "*.py" });
    return grepMatches(reply.text).map((m) => ({
      name: /^(?:class|def) (\w+)/.exec(m.text)![1]!,
      path: m.path,
      line: m.line,
    }));
  }

  /** Task 3: `py_get_definition` per function; the first line of the answer is its `path:start-end`. */
  async readFunctions(wanted: readonly Target[]): Promise<FunctionText[]> {
    const read: FunctionText[] = [];
    for (const { path, name } of wanted) {
      const reply = await this.#client.must("py_get_definition", { path, name });
      read.push({ name, path, text: reply.text.slice(reply.text.indexOf("\n") + 1) });
    }
    return read;
  }

  /** Task 4: one `edit_file`. */
  async edit(fn: FunctionText, change: Change): Promise<void> {
    const { old, new: replacement } = editStrings(fn, change);
    await this.#client.must("edit_file", {
      path: fn.path,
      old_string: old,
      new_string: replacement,
    });
  }

  /** Task 5: one `find_usages`. */
  async usages(target: Target): Promise<Site[]> {
    return sitesOf(await this.#client.must("find_usages", { ...target }));
  }

  /** Task 6: one `rename_symbol`. */
  async rename(target: Target, newName: string): Promise<void> {
    await this.#client.must("rename_symbol", { ...target, new_name: newName });
  }

  /**
   * Task 7: create the sub-package, move the modules, then fix the imports:
   * `grep` for imports of the moved modules (one `edit_file` with
   * `replace_all` per importing file when every moved module shares a
   * prefix, as `popen_*` do, and no other module has it) and for the moved
   * modules' relative imports (one `edit_file` per line that changes).
   */
  async move(spec: MoveSpec): Promise<void> {
    const folder = `${PACKAGE}/${spec.folder}`;
    await this.#client.must("create_directory", { path: folder });
    await this.#client.must("write_file", { path: `${folder}/__init__.py`, content: "" });
    for (const module of spec.modules) {
      await this.#client.must("move_file", {
        source: `${PACKAGE}/${module}.py`,
        destination: `${folder}/${module}.py`,
      });
    }
    await this.#fixImporters(spec, folder);
    const inside = await this.#client.must("grep", { path: folder, pattern: "^\\s*from \\." });
    for (const match of grepMatches(inside.text)) {
      const fixed = movedImportLine(match.text, true, spec);
      if (fixed === match.text) continue;
      await this.#client.must("edit_file", {
        path: match.path,
        old_string: match.text,
        new_string: fixed,
      });
    }
  }

  /** Fix `from .m import x` of moved modules in the files that stayed. */
  async #fixImporters(spec: MoveSpec, folder: string): Promise<void> {
    const prefix = commonPrefix(spec.modules);
    const pattern = `^\\s*from \\.(${prefix ? `${prefix}\\w*` : spec.modules.join("|")}) import`;
    const reply = await this.#client.must("grep", { path: PACKAGE, pattern });
    const matches = grepMatches(reply.text).filter((m) => !m.path.startsWith(`${folder}/`));
    for (const path of new Set(matches.map((m) => m.path))) {
      const lines = matches.filter((m) => m.path === path);
      const all = lines.every((m) => spec.modules.includes(/from \.(\w+)/.exec(m.text)![1]!));
      if (prefix && all) {
        const [old, fixed] = [`from .${prefix}`, `from .${spec.folder}.${prefix}`];
        await this.#client.must("edit_file", {
          path,
          old_string: old,
          new_string: fixed,
          replace_all: true,
        });
        continue;
      }
      for (const { text } of lines) {
        const fixed = movedImportLine(text, false, spec);
        if (fixed !== text) {
          await this.#client.must("edit_file", { path, old_string: text, new_string: fixed });
        }
      }
    }
  }
}
