/**
 * A whole file read into one buffer of its size. A fresh process took
 * 155-224 ms to `Deno.readFileSync` the symbol index's 16 MB word file (20,000
 * files' words), and 67-88 ms to open it, ask its size and read it into a
 * buffer of that size. For the host's own large files in the state
 * directory: a project's files are read through `SafeFs`.
 *
 * @module
 */

/**
 * The bytes of a file, read whole (a file that grows while it is read is read to its end).
 *
 * @param path The file.
 * @returns Its bytes.
 * @throws What `Deno.openSync` and reading throw (`NotFound`, `PermissionDenied`, …).
 */
export function readWholeFileSync(path: string | URL): Uint8Array {
  using file = Deno.openSync(path, { read: true });
  // One byte more than the size: a read that fills it means the file grew.
  let buffer = new Uint8Array(file.statSync().size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const larger = new Uint8Array(buffer.length * 2);
      larger.set(buffer);
      buffer = larger;
    }
    const read = file.readSync(buffer.subarray(length));
    if (read === null || read === 0) break;
    length += read;
  }
  return buffer.subarray(0, length);
}
