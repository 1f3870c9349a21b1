import { assert, assertEquals, assertMatch, assertRejects } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { Anchor } from "../../security/anchored.ts";
import { ToolError } from "../../security/errors.ts";
import { resolvePolicy } from "../../security/policy.ts";
import { Resolver } from "../../security/resolver.ts";
import { SafeFs } from "../../security/safe_fs.ts";
import { findLibc } from "../../security/landlock.ts";
import { loadNativeFs } from "../../security/native_fs.ts";

const libc = findLibc();
/** The calls through Deno, and (where libc loads) through libc as a confined worker makes them. */
const ways = [
  { name: "through Deno", libc: null },
  ...(libc ? [{ name: "through libc", libc }] : []),
];

/**
 * A file checked by the resolver, then swapped for something else before it
 * is opened: the anchored open never follows, waits on or reads what was
 * swapped in (the stale-read check reads files this way), whether the calls
 * go through Deno or straight to libc.
 */
for (const way of ways) {
  Deno.test(`the anchored read refuses what is swapped in between the check and the open, ${way.name}`, async (t) => {
    await swapsRefused(t, way.libc);
  });
}

async function swapsRefused(t: Deno.TestContext, libc: string | null) {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(`${outside.path}/secret.txt`, "s3cret");
  await Deno.writeTextFile(`${root.path}/other.txt`, "other");
  const policy = await resolvePolicy({ roots: [root.path] });
  const native = libc ? loadNativeFs(libc, policy.roots) : undefined;
  if (libc) assert(native, "libc's calls load");
  const resolver = new Resolver(policy, native);
  const fs = new SafeFs(resolver, new Anchor(policy.roots, native !== undefined, native));
  const swaps: Array<[string, (path: string) => Promise<void>]> = [
    ["a symlink out", (path) => Deno.symlink(`${outside.path}/secret.txt`, path)],
    ["a FIFO", async (path) => {
      const made = await new Deno.Command("mkfifo", { args: [path] }).output();
      assertEquals(made.success, true);
    }],
    ["a hard link", (path) => Deno.link(`${root.path}/other.txt`, path)],
    ["a symlink to a device", (path) => Deno.symlink("/dev/zero", path)],
  ];
  for (const [what, swap] of swaps) {
    await t.step(what, async () => {
      const path = `${root.path}/a.txt`;
      await Deno.writeTextFile(path, "plain");
      const resolved = resolver.resolveSync("a.txt", { want: "file" });
      await Deno.remove(path);
      await swap(path);
      // A FIFO opened for reading without O_NONBLOCK would hang here, waiting for a writer.
      const error = await assertRejects(
        () => Promise.resolve().then(() => fs.readVersion(resolved, 1024)),
        ToolError,
      ) as ToolError;
      assertEquals(error.code, "path_denied");
      assertMatch(error.message, /swapped|hard links/);
      await Deno.remove(path);
    });
  }
}
