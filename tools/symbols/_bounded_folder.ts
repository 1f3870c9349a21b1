/**
 * A folder of the state directory that holds at most so many bytes: each
 * file is written atomically (a new file renamed over the old), and past
 * the budget the oldest files go. The kept facts and the kept answers are
 * each one such folder.
 *
 * @module
 */

/** Files in one folder, within a budget of bytes. */
export class BoundedFolder {
  #dir: string;
  #budget: number;
  /** Each file's bytes, oldest first (read from the folder at first use). */
  #files: Map<string, number> | undefined;
  #bytes = 0;

  /**
   * @param dir The folder (made at first use, in a state directory that exists).
   * @param budget The most bytes its files hold.
   */
  constructor(dir: string, budget: number) {
    this.#dir = dir;
    this.#budget = budget;
  }

  /**
   * Write a file, then make room; a failure leaves the old file (and is not the caller's).
   *
   * @param path A path in the folder.
   * @param bytes The content.
   * @returns Whether it was written.
   */
  write(path: string, bytes: Uint8Array): boolean {
    const temporary = `${path}.${crypto.randomUUID()}.tmp`;
    try {
      const files = this.#scan();
      Deno.writeFileSync(temporary, bytes, { mode: 0o600 });
      Deno.renameSync(temporary, path);
      this.#bytes += bytes.length - (files.get(path) ?? 0);
      files.delete(path);
      files.set(path, bytes.length);
      for (const [old, size] of files) {
        if (this.#bytes <= this.#budget) break;
        files.delete(old);
        this.#bytes -= size;
        removeQuietly(old);
      }
      return true;
    } catch {
      removeQuietly(temporary);
      return false;
    }
  }

  /**
   * Remove a file (when there is one).
   *
   * @param path A path in the folder.
   */
  remove(path: string): void {
    this.#bytes -= this.#files?.get(path) ?? 0;
    this.#files?.delete(path);
    removeQuietly(path);
  }

  /**
   * The files there are, oldest first.
   *
   * @returns Their paths (none when the folder cannot be made or read).
   */
  paths(): string[] {
    try {
      return [...this.#scan().keys()];
    } catch {
      return [];
    }
  }

  /** The files there are, oldest first (made once, and the folder). */
  #scan(): Map<string, number> {
    if (this.#files) return this.#files;
    try {
      Deno.mkdirSync(this.#dir, { mode: 0o700 });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    const found: Array<[string, number, number]> = [];
    for (const entry of Deno.readDirSync(this.#dir)) {
      if (!entry.isFile || entry.name.endsWith(".tmp")) continue;
      const path = `${this.#dir}/${entry.name}`;
      try {
        const info = Deno.statSync(path);
        found.push([path, info.size, info.mtime?.getTime() ?? 0]);
      } catch {
        // Gone meanwhile.
      }
    }
    found.sort((a, b) => a[2] - b[2]);
    this.#files = new Map(found.map(([path, size]) => [path, size]));
    this.#bytes = found.reduce((sum, [, size]) => sum + size, 0);
    return this.#files;
  }
}

/** Remove a file at once; one already gone is fine. */
function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Already gone, or never made.
  }
}
