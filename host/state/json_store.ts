/**
 * One JSON file of host state in the state directory (anchors, the todo
 * list, and what comes next): loaded only from a directory the host made
 * its own (`state_dir.ts`), saved atomically (a temporary file, then a
 * rename) one save at a time, in the order they were asked for, so that
 * concurrent saves never race and the last one asked for is what stays.
 *
 * @module
 */

import { type HostLogger, stderrLogger } from "../logger.ts";
import { type StateDirOptions, trustedStateFile } from "./state_dir.ts";

/** A JSON state file and its serialized saves. */
export class JsonStateFile {
  #path: string;
  #logger: HostLogger;
  #saving: Promise<void> = Promise.resolve();

  private constructor(path: string, logger: HostLogger) {
    this.#path = path;
    this.#logger = logger;
  }

  /**
   * Open a state file and read back what an earlier run saved there.
   *
   * @param stateDir The host's state directory.
   * @param name The file's name (one of `STATE_ENTRIES`).
   * @param options The logger and the clock.
   * @returns The file, and its parsed content (`undefined` when there is none
   *   to load, or it is not JSON: that is said once through the logger).
   * @throws {RangeError} When `name` is not a state file.
   */
  static async open(
    stateDir: string,
    name: string,
    options: StateDirOptions = {},
  ): Promise<{ file: JsonStateFile; saved: unknown }> {
    const logger = options.logger ?? stderrLogger();
    const file = new JsonStateFile(`${stateDir}/${name}`, logger);
    const text = await trustedStateFile(stateDir, name, options);
    if (text === undefined) return { file, saved: undefined };
    try {
      return { file, saved: JSON.parse(text) };
    } catch (error) {
      logger.log("warn", `Not loading "${file.#path}": it is not JSON`, String(error));
      return { file, saved: undefined };
    }
  }

  /**
   * Save a value, after the saves asked for before it. The value is
   * serialized now: later changes to it do not reach this save.
   *
   * @param value What to save.
   * @returns Resolves when it is on disk.
   * @throws When the file cannot be written (said once through the logger too).
   */
  save(value: unknown): Promise<void> {
    const json = JSON.stringify(value, null, 1);
    const done = this.#saving.then(() => writeAtomically(this.#path, json));
    this.#saving = done.catch((error) => {
      this.#logger.log("warn", `Cannot save "${this.#path}"`, String(error));
    });
    return done;
  }

  /** Resolves when every save asked for so far has ended (failures were logged). */
  flush(): Promise<void> {
    return this.#saving;
  }
}

/**
 * The array under `key` of a saved state object, or an empty one.
 *
 * @param saved What the state file held.
 * @param key The field.
 * @returns Its elements, unchecked.
 */
export function savedList(saved: unknown, key: string): unknown[] {
  if (typeof saved !== "object" || saved === null || !(key in saved)) return [];
  const list: unknown = (saved as Record<string, unknown>)[key];
  return Array.isArray(list) ? list : [];
}

async function writeAtomically(path: string, json: string): Promise<void> {
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temp, json);
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {
      // Never written, or already renamed: nothing is left behind.
    });
    throw error;
  }
}
