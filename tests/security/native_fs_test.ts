/**
 * libc's file calls, as a confined tool worker's reads make them
 * (`security/native_fs.ts`): each answers exactly as Deno's own call does,
 * and every failure — a path C cannot take as it is included — is a plain
 * "no", so that the caller asks Deno, never a truncated or guessed answer.
 */

import { assert, assertEquals, assertRejects } from "../_assert.ts";
import { missing, tempDir } from "../_helpers.ts";
import { constants } from "node:fs";
import { findLibc } from "../../security/landlock.ts";
import { loadNativeFs, type NativeFs } from "../../security/native_fs.ts";

const libc = findLibc();
const noLibc = missing("libc (security/landlock.ts LIBC_CANDIDATES)", libc !== null);

/** What Deno says, or undefined where it throws. */
function deno<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}

/** A file's information without the access time (reading it may change it). */
function comparable(info: Deno.FileInfo | undefined) {
  return info && { ...info, atime: null };
}

Deno.test({
  name: "native calls: stat, lstat and realpath answer as Deno's own calls do",
  ignore: noLibc,
  async fn() {
    const native = loadNativeFs(libc!, ["/"])!;
    await using root = await tempDir();
    const dir = root.path;
    await Deno.writeTextFile(`${dir}/file.txt`, "twelve bytes");
    await Deno.mkdir(`${dir}/sub/deeper`, { recursive: true });
    await Deno.symlink(`${dir}/file.txt`, `${dir}/link`);
    await Deno.symlink(`${dir}/sub`, `${dir}/sublink`);
    await Deno.symlink(`${dir}/gone`, `${dir}/dangling`);
    const fifo = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
    assert(fifo.success);
    const paths = [
      dir,
      `${dir}/file.txt`,
      `${dir}/sub/deeper`,
      `${dir}/link`,
      `${dir}/sublink/deeper`,
      `${dir}/dangling`,
      `${dir}/fifo`,
      `${dir}/missing`,
      `${dir}/file.txt/not-a-dir`,
      "/dev/null",
      "/",
    ];
    for (const path of paths) {
      assertEquals(
        comparable(native.lstat(path)),
        comparable(deno(() => Deno.lstatSync(path))),
        path,
      );
      assertEquals(
        comparable(native.stat(path)),
        comparable(deno(() => Deno.statSync(path))),
        path,
      );
      assertEquals(native.realPath(path), deno(() => Deno.realPathSync(path)), path);
    }
  },
});

Deno.test({
  name: "native calls: a path C cannot take as it is gets no answer, never a truncated one",
  ignore: noLibc,
  async fn() {
    await using root = await tempDir();
    const native = loadNativeFs(libc!, [root.path])!;
    await Deno.writeTextFile(`${root.path}/a`, "a");
    // Up to the NUL this names a real file: C would read "a" and answer for it.
    for (const path of [`${root.path}/a\0/etc/passwd`, `${root.path}/a\uD800`]) {
      assertEquals(native.lstat(path), undefined);
      assertEquals(native.stat(path), undefined);
      assertEquals(native.realPath(path), undefined);
      assertEquals(native.open(path, constants.O_RDONLY), -1);
    }
    const long = `${root.path}/${"d/".repeat(2100)}a`;
    assertEquals(native.lstat(long), undefined);
    assertEquals(native.open(long, constants.O_RDONLY), -1);
    // A real path that is not UTF-8 (made by Python): Deno's own call decides what it becomes.
    const made = await new Deno.Command("python3", {
      args: [
        "-c",
        "import os, sys; d = sys.argv[1].encode(); os.mkdir(d + b'/\\xff'); os.symlink(d + b'/\\xff', d + b'/odd')",
        root.path,
      ],
    }).output();
    assert(made.success, new TextDecoder().decode(made.stderr));
    assert(native.lstat(`${root.path}/odd`)?.isSymlink);
    assertEquals(native.realPath(`${root.path}/odd`), undefined);
  },
});

Deno.test({
  name: "native calls: open, fstat, read and close a file; O_NOFOLLOW refuses a symlink",
  ignore: noLibc,
  async fn() {
    await using root = await tempDir();
    const native: NativeFs = loadNativeFs(libc!, [root.path])!;
    const path = `${root.path}/file.txt`;
    await Deno.writeTextFile(path, "hello, native\n");
    await Deno.symlink(path, `${root.path}/link`);
    const fd = native.open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    assert(fd >= 0);
    try {
      assertEquals(comparable(native.fstat(fd)), comparable(Deno.statSync(path)));
      const buffer = new Uint8Array(64);
      const n = native.read(fd, buffer);
      assertEquals(new TextDecoder().decode(buffer.subarray(0, n)), "hello, native\n");
      assertEquals(native.read(fd, buffer), 0);
    } finally {
      native.close(fd);
    }
    assertEquals(native.fstat(fd), undefined, "closed");
    assertEquals(native.read(fd, new Uint8Array(1)), -1, "closed");
    assertEquals(native.open(`${root.path}/link`, constants.O_RDONLY | constants.O_NOFOLLOW), -1);
    assertEquals(native.open(`${root.path}/missing`, constants.O_RDONLY), -1);
  },
});

Deno.test({
  name:
    "native calls: nothing outside the directories they were loaded for, and no open but to read",
  ignore: noLibc,
  async fn() {
    await using root = await tempDir();
    await using outside = await tempDir();
    await Deno.writeTextFile(`${root.path}/a.txt`, "a");
    await Deno.writeTextFile(`${outside.path}/secret.txt`, "s3cret");
    const native = loadNativeFs(libc!, [root.path])!;
    assert(native.lstat(`${root.path}/a.txt`)?.isFile);
    // Outside, a sibling sharing the prefix, and `..` out: no answer (Deno's call then decides).
    for (
      const path of [
        `${outside.path}/secret.txt`,
        `${root.path}-other/x`,
        `${root.path}/../${outside.path.split("/").pop()}/secret.txt`,
        `${root.path}/./a.txt`,
        "/etc/passwd",
      ]
    ) {
      assertEquals(native.lstat(path), undefined, path);
      assertEquals(native.stat(path), undefined, path);
      assertEquals(native.realPath(path), undefined, path);
      assertEquals(native.open(path, constants.O_RDONLY), -1, path);
    }
    // An open for anything but reading is refused before libc sees it.
    for (
      const flags of [constants.O_WRONLY, constants.O_RDWR, constants.O_CREAT, constants.O_TRUNC]
    ) {
      assertEquals(native.open(`${root.path}/a.txt`, flags), -1);
    }
    assertEquals(native.open(`${root.path}/new.txt`, constants.O_CREAT | constants.O_WRONLY), -1);
    assertEquals(await Deno.readTextFile(`${root.path}/a.txt`), "a");
    await assertRejects(() => Deno.stat(`${root.path}/new.txt`), Deno.errors.NotFound);
    // Loaded for a directory that does not exist, they are not loaded at all.
    assertEquals(loadNativeFs(libc!, [`${root.path}/missing`]), undefined);
  },
});
