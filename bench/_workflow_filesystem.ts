/**
 * The workflow bench's agent for `@modelcontextprotocol/server-filesystem`:
 * what a competent agent does with its tools (directory_tree,
 * read_multiple_files, edit_file, create_directory, write_file, move_file).
 * It has no content search, no line ranges (only head/tail) and no code
 * tools, so it reads the package's files and finds definitions and uses in
 * the text itself. By default it remembers every file it has read, as a
 * model keeps it in its context, and applies its own edits to that memory:
 * it never reads a file twice, the reading most favourable to this server.
 * With `forget`, each task starts with a fresh context (a sub-agent per task,
 * or a compacted conversation): it keeps earlier tasks' answers (the file
 * list, definitions, sites), not the files' text.
 *
 * @module
 */

import type { MeteredClient } from "./_workflow_meter.ts";
import { findDefinition, occurrences } from "./_workflow_reading.ts";
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

interface TreeEntry {
  name: string;
  type: "file" | "directory";
  children?: TreeEntry[];
}

/** The files a `directory_tree` answer lists, relative. */
function treeFiles(entries: readonly TreeEntry[], prefix = ""): string[] {
  return entries.flatMap((entry) =>
    entry.type === "directory"
      ? treeFiles(entry.children ?? [], `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`]
  );
}

/**
 * Split a `read_multiple_files` answer (`path:\ntext` blocks joined by
 * `\n---\n`, in the order asked) into texts.
 */
function splitFiles(answer: string, paths: readonly string[]): string[] {
  return paths.map((path, i) => {
    const head = `${path}:\n`;
    const start = answer.indexOf(head) + head.length;
    const next = paths[i + 1];
    const end = next === undefined ? answer.length : answer.indexOf(`\n---\n${next}:\n`, start);
    if (start < head.length || end < 0) {
      throw new Error(`read_multiple_files did not return ${path}`);
    }
    return answer.slice(start, end);
  });
}

/** Replace the occurrences on one line of a module (offsets from `occurrences`). */
function renameLine(text: string, at: readonly number[], name: string, newName: string): string {
  const lineStart = text.lastIndexOf("\n", at[0]! - 1) + 1;
  const lineEnd = text.indexOf("\n", lineStart);
  let line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  for (const index of [...at].sort((a, b) => b - a)) {
    const i = index - lineStart;
    line = line.slice(0, i) + newName + line.slice(i + name.length);
  }
  return line;
}

/** server-filesystem's agent; see the module doc. */
export class FilesystemAgent implements WorkflowAgent {
  readonly label = "server-filesystem";
  #client: MeteredClient;
  #root: string;
  #files: string[] = [];
  #memory = new Map<string, string>();
  #forget: boolean;

  /**
   * @param client The metered client of a server-filesystem serving root.
   * @param root The project (absolute; the server takes absolute paths).
   * @param options `forget`: start each task without the files read before.
   */
  constructor(client: MeteredClient, root: string, options: { forget?: boolean } = {}) {
    this.#client = client;
    this.#root = root;
    this.#forget = options.forget ?? false;
  }

  /** A new task: with `forget`, the files' text read so far is gone. */
  startTask(): void {
    if (this.#forget) this.#memory.clear();
  }

  /** Task 1: `directory_tree` of the project. */
  async layout(): Promise<string> {
    const reply = await this.#client.must("directory_tree", { path: this.#root });
    this.#files = treeFiles(JSON.parse(reply.text) as TreeEntry[]);
    return reply.text;
  }

  /** Read every Python file not yet in memory, in one `read_multiple_files`. */
  #readAll(): Promise<void> {
    return this.#read(this.#files.filter((path) => path.endsWith(".py")));
  }

  /** Read the files not yet in memory, in one `read_multiple_files`. */
  async #read(wanted: readonly string[]): Promise<void> {
    const paths = [...new Set(wanted)].filter((path) => !this.#memory.has(path));
    if (paths.length === 0) return;
    const absolute = paths.map((path) => `${this.#root}/${path}`);
    const reply = await this.#client.must("read_multiple_files", { paths: absolute });
    splitFiles(reply.text, absolute).forEach((text, i) => this.#memory.set(paths[i]!, text));
  }

  /** Task 2: no content search: read the package, look for `class`/`def` lines. */
  async definitions(names: readonly string[]): Promise<Definition[]> {
    await this.#readAll();
    const pattern = new RegExp(`^(?:class|def)\\s+(${names.join("|")})\\b`);
    const found: Definition[] = [];
    for (const [path, text] of this.#memory) {
      text.split("\n").forEach((line, i) => {
        const match = pattern.exec(line);
        if (match) found.push({ name: match[1]!, path, line: i + 1 });
      });
    }
    return found;
  }

  /** Task 3: the functions are in the files it has read; cut them out by indentation. */
  async readFunctions(wanted: readonly Target[]): Promise<FunctionText[]> {
    await this.#read(wanted.map((each) => each.path));
    return wanted.map(({ path, name }) => {
      const found = findDefinition(this.#memory.get(path) ?? "", name);
      if (!found) throw new Error(`${name} is not in ${path}`);
      return { name, path, text: found.text };
    });
  }

  /** Apply edits with `edit_file`, and to the memory of the file. */
  async #edit(path: string, edits: Array<{ oldText: string; newText: string }>): Promise<void> {
    await this.#client.must("edit_file", { path: `${this.#root}/${path}`, edits });
    let text = this.#memory.get(path);
    if (text === undefined) return; // not read in this context: nothing to keep up to date
    for (const edit of edits) text = text.replace(edit.oldText, () => edit.newText);
    this.#memory.set(path, text);
  }

  /** Task 4: one `edit_file`. */
  async edit(fn: FunctionText, change: Change): Promise<void> {
    const { old, new: replacement } = editStrings(fn, change);
    await this.#edit(fn.path, [{ oldText: old, newText: replacement }]);
  }

  /** Task 5: no search: every file is read (or remembered) and searched for the name as code. */
  async usages(target: Target): Promise<Site[]> {
    await this.#readAll();
    const name = target.name.split(".").at(-1)!;
    const sites: Site[] = [];
    for (const [path, text] of this.#memory) {
      const lines = new Set(occurrences(text, name).map((each) => each.line));
      for (const line of lines) sites.push({ path, line });
    }
    return sites;
  }

  /** Task 6: one `edit_file` per file, one edit per line that uses the name. */
  async rename(target: Target, newName: string, sites: readonly Site[]): Promise<void> {
    const name = target.name.split(".").at(-1)!;
    await this.#read(sites.map((site) => site.path));
    for (const path of new Set(sites.map((site) => site.path))) {
      const text = this.#memory.get(path)!;
      const found = occurrences(text, name);
      const lines = sites.filter((site) => site.path === path).map((site) => site.line);
      const edits = lines.map((line) => {
        const at = found.filter((each) => each.line === line).map((each) => each.index);
        const oldText = text.split("\n")[line - 1]!;
        return { oldText, newText: renameLine(text, at, name, newName) };
      });
      await this.#edit(path, edits);
    }
  }

  /** Task 7: create the sub-package, move the modules, then fix the imports it finds in memory. */
  async move(spec: MoveSpec): Promise<void> {
    const folder = `${PACKAGE}/${spec.folder}`;
    await this.#readAll(); // to find the importers afterwards
    await this.#client.must("create_directory", { path: `${this.#root}/${folder}` });
    await this.#client.must("write_file", {
      path: `${this.#root}/${folder}/__init__.py`,
      content: "",
    });
    this.#memory.set(`${folder}/__init__.py`, "");
    this.#files.push(`${folder}/__init__.py`);
    for (const module of spec.modules) {
      const [from, to] = [`${PACKAGE}/${module}.py`, `${folder}/${module}.py`];
      await this.#client.must("move_file", {
        source: `${this.#root}/${from}`,
        destination: `${this.#root}/${to}`,
      });
      this.#memory.set(to, this.#memory.get(from)!);
      this.#memory.delete(from);
      this.#files = this.#files.map((path) => (path === from ? to : path));
    }
    for (const [path, text] of [...this.#memory]) {
      const inMoved = path.startsWith(`${folder}/`);
      if (!inMoved && path.split("/").length !== 2) continue; // sub-packages import nothing moved
      const edits = text.split("\n").map((line) => ({
        oldText: line,
        newText: movedImportLine(line, inMoved, spec),
      })).filter((edit) => edit.oldText !== edit.newText);
      if (edits.length > 0) await this.#edit(path, edits);
    }
  }
}
