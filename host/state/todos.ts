/**
 * The todo list the todo tools read and write, kept as `todos.json` in the
 * state directory.
 *
 * @module
 */

import type { TodoItem, TodoStore } from "../../tools/todo/todo.ts";
import { JsonStateFile, savedList } from "./json_store.ts";
import type { StateDirOptions } from "./state_dir.ts";

/** The todo list, persisted as `todos.json` in the state directory. */
export class TodoFileStore implements TodoStore {
  #file: JsonStateFile;
  #items: TodoItem[] = [];

  private constructor(file: JsonStateFile) {
    this.#file = file;
  }

  /**
   * Open the list kept in a state directory: only from a directory the host
   * made its own (`state_dir.ts`); a forged `todos.json` is set aside, never loaded.
   *
   * @param stateDir The host's state directory.
   * @param options Where to say what was set aside, and the clock.
   * @returns The store.
   */
  static async open(stateDir: string, options: StateDirOptions = {}): Promise<TodoFileStore> {
    const { file, saved } = await JsonStateFile.open(stateDir, "todos.json", options);
    const store = new TodoFileStore(file);
    // The todo tools check each item's shape as they read the list.
    store.#items = savedList(saved, "todos") as TodoItem[];
    return store;
  }

  /** The list. */
  get(): TodoItem[] {
    return [...this.#items];
  }

  /**
   * Replace and persist the list, after the saves asked for before.
   *
   * @param items The new list.
   * @returns Resolves when it is on disk.
   * @throws When it cannot be written.
   */
  set(items: TodoItem[]): Promise<void> {
    this.#items = [...items];
    return this.#file.save({ todos: this.#items });
  }
}
