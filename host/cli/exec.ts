/**
 * Replace this process with another program (libc's `execve`, through FFI):
 * the launcher becomes the scoped server, keeping its process id, its stdio
 * and its parent, so an MCP client sees one process as it started it.
 *
 * The launcher may load libc only (`--allow-ffi=<libc>`), which does not let
 * it take the address of a buffer (`Deno.UnsafePointer` needs FFI for
 * everything). libc does it instead: `memcpy(buf, buf, 0)` returns `buf`.
 * All strings live in one `ArrayBuffer`, whose memory V8 never moves.
 *
 * @module
 */

import { constants } from "node:os";

/**
 * Replace this process. Returns only when `execve` failed.
 *
 * @param libc The path of libc (the process has FFI permission for it).
 * @param command The program's absolute path.
 * @param args Its arguments (without the program itself).
 * @param env The environment to give it.
 * @returns Why it failed (it does not return when it worked).
 */
export function execProcess(
  libc: string,
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): string {
  let lib;
  try {
    lib = Deno.dlopen(libc, {
      execve: { parameters: ["buffer", "buffer", "buffer"], result: "i32" },
      addressOf: { name: "memcpy", parameters: ["buffer", "buffer", "usize"], result: "u64" },
      readAt: { name: "memcpy", parameters: ["buffer", "u64", "usize"], result: "u64" },
      __errno_location: { parameters: [], result: "u64" },
    });
  } catch (error) {
    return `cannot load libc: ${error instanceof Error ? error.message : error}`;
  }
  const argv = [command, ...args];
  const envp = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  const { strings, offsets, first } = packStrings([...argv, ...envp]);
  const base = BigInt(lib.symbols.addressOf(strings, strings, 0n));
  const pointers = (from: number, count: number) => {
    const array = new BigUint64Array(new ArrayBuffer((count + 1) * 8));
    for (let i = 0; i < count; i++) array[i] = base + BigInt(offsets[from + i]!);
    return array;
  };
  const path = strings.subarray(0, first);
  const args8 = pointers(0, argv.length);
  const env8 = pointers(argv.length, envp.length);
  // Ready before the call, so that nothing runs between execve failing and errno being read.
  const errno = new Int32Array(new ArrayBuffer(4));
  const errnoBytes = new Uint8Array(errno.buffer);
  const errnoAt = BigInt(lib.symbols.__errno_location());
  lib.symbols.execve(path, args8, env8);
  lib.symbols.readAt(errnoBytes, errnoAt, 4n);
  lib.close();
  const name = Object.entries(constants.errno).find(([, value]) => value === errno[0])?.[0];
  return `execve of "${command}" failed (${name ?? `errno ${errno[0]}`})`;
}

/** C strings packed in one buffer, where each starts, and the first one's length. */
interface PackedStrings {
  /** Every string, NUL-terminated, back to back in one `ArrayBuffer`. */
  strings: Uint8Array;
  /** Where each string starts in `strings`. */
  offsets: number[];
  /** The first string's length, its NUL included. */
  first: number;
}

/** Pack strings as NUL-terminated C strings into one buffer, whose memory V8 never moves. */
function packStrings(texts: readonly string[]): PackedStrings {
  const encoded = texts.map((text) => new TextEncoder().encode(`${text}\0`));
  const strings = new Uint8Array(
    new ArrayBuffer(encoded.reduce((sum, bytes) => sum + bytes.length, 0)),
  );
  const offsets: number[] = [];
  let offset = 0;
  for (const bytes of encoded) {
    strings.set(bytes, offset);
    offsets.push(offset);
    offset += bytes.length;
  }
  return { strings, offsets, first: encoded[0]!.length };
}
