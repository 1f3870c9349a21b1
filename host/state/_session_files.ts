/**
 * A session's folder on disk: `comms.jsonl` and `subprocess.jsonl`, each
 * kept open and appended to in one write per batch, and `scripts/`. The
 * folder is made on the first write. The host's process writes it
 * directly, never a tool; a write that fails loses only its lines, and the
 * first failure is said once through the host's logger.
 *
 * @module
 */

import type { HostLogger } from "../logger.ts";

/** The session's two line files. */
export type SessionFileName = "comms.jsonl" | "subprocess.jsonl";

/** The folder of kept scripts, inside a session's folder. */
export const SCRIPTS_DIR = "scripts";

/** Writes one session's files and counts what it wrote. */
export class SessionFiles {
  /** The session's folder. */
  readonly dir: string;
  #logger: HostLogger;
  #open = new Map<SessionFileName, Deno.FsFile>();
  #encoder = new TextEncoder();
  #made = false;
  #failed = false;
  #bytes = 0;

  /**
   * @param dir The session's folder (made on the first write).
   * @param logger Where the first failure is said.
   */
  constructor(dir: string, logger: HostLogger) {
    this.dir = dir;
    this.#logger = logger;
  }

  /** Bytes this session wrote. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Append text to one of the line files, in one write (never throws).
   *
   * @param name The file.
   * @param text Whole lines.
   * @returns Whether it was written.
   */
  append(name: SessionFileName, text: string): boolean {
    if (text === "") return true;
    try {
      const file = this.#file(name);
      const bytes = this.#encoder.encode(text);
      let offset = 0;
      while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
      this.#bytes += bytes.length;
      return true;
    } catch (error) {
      this.#open.get(name)?.close();
      this.#open.delete(name);
      this.#fail(error);
      return false;
    }
  }

  /**
   * Keep a script in `scripts/` under a new name (never throws).
   *
   * @param name Its file name.
   * @param text Its text.
   * @returns Whether it was written.
   */
  writeScript(name: string, text: string): boolean {
    try {
      this.#make();
      const bytes = this.#encoder.encode(text);
      Deno.writeFileSync(`${this.dir}/${SCRIPTS_DIR}/${name}`, bytes, { createNew: true });
      this.#bytes += bytes.length;
      return true;
    } catch (error) {
      this.#fail(error);
      return false;
    }
  }

  /** Close the line files. */
  close(): void {
    for (const file of this.#open.values()) {
      try {
        file.close();
      } catch {
        // Closed already: nothing is left to release.
      }
    }
    this.#open.clear();
  }

  #file(name: SessionFileName): Deno.FsFile {
    let file = this.#open.get(name);
    if (file === undefined) {
      this.#make();
      file = Deno.openSync(`${this.dir}/${name}`, { append: true, create: true });
      this.#open.set(name, file);
    }
    return file;
  }

  #make(): void {
    if (this.#made) return;
    Deno.mkdirSync(`${this.dir}/${SCRIPTS_DIR}`, { recursive: true });
    this.#made = true;
  }

  /** Say the first failure (the disk is full or gone); later ones lose their lines quietly. */
  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    const why = error instanceof Error ? error.message : String(error);
    this.#logger.log(
      "warn",
      `Cannot write the session log in "${this.dir}": what could not be written is lost, serving goes on`,
      why,
    );
  }
}
