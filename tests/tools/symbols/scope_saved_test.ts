/**
 * A scope's listing kept on disk between runs (`tools/symbols/_scope_saved.ts`):
 * the next run's first listing checks it instead of walking, reads its
 * files' versions anew, and walks after all when anything it rests on
 * moved — a file added or removed (its directory's mtime), a directory gone,
 * a `.gitignore` changed, a name added to a directory changed just before
 * the listing was taken (its mtime may not move again) — or when the state
 * directory is not the host's own.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { trustStateDir } from "../../../host/state/state_dir.ts";
import { Skipped } from "../../../tools/_skipped.ts";
import type { ToolContext } from "../../../tools/tool.ts";
import { ScopeListings } from "../../../tools/symbols/_scope_listing.ts";
import { SCOPES_DIR } from "../../../tools/symbols/state_names.ts";

const python = (name: string) => name.endsWith(".py");

/** One run's first listing of the root: its source files (relative, with sizes), and whether it was the kept one. */
async function firstListing(ctx: ToolContext): Promise<{ files: string[]; restored: boolean }> {
  const listings = new ScopeListings();
  try {
    const scope = await ctx.fs.resolve(ctx.policy.roots[0]!, "directory");
    const listed = await listings.list(ctx, scope, python, new Skipped());
    const files = [...listed.dirs.values()].flat()
      .map((entry) => `${ctx.resolver.display(entry.path)}:${entry.size}`).sort();
    return { files, restored: listed.restored === true };
  } finally {
    listings.close();
  }
}

/** Every directory under (and at) a root made an hour old: no change of theirs is recent. */
function ageDirs(root: string): void {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const age = (dir: string) => {
    Deno.utimeSync(dir, hourAgo, hourAgo);
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory && entry.name !== ".toolhost") age(`${dir}/${entry.name}`);
    }
  };
  age(root);
}

Deno.test("a scope's listing kept by one run is checked, not walked, by the next", async (t) => {
  await using root = await tempDir();
  const at = (path: string) => `${root.path}/${path}`;
  await Deno.mkdir(at("a/b"), { recursive: true });
  await Deno.mkdir(at("skip"));
  await Deno.writeTextFile(at("a/m.py"), "x = 1\n");
  await Deno.writeTextFile(at("a/b/n.py"), "y = 2\n");
  await Deno.writeTextFile(at("a/notes.txt"), "prose\n");
  await Deno.writeTextFile(at("skip/x.py"), "z = 3\n");
  await Deno.writeTextFile(at(".gitignore"), "skip/\n");
  const ctx = await toolContext(root.path);
  assert(await trustStateDir(ctx.policy.stateDir, { logger: { log: () => {} } }));
  ageDirs(root.path);

  await t.step("the first run walks and keeps its listing", async () => {
    assertEquals(await firstListing(ctx), {
      files: ["a/b/n.py:6", "a/m.py:6"],
      restored: false,
    });
    assertEquals([...Deno.readDirSync(`${ctx.policy.stateDir}/${SCOPES_DIR}`)].length, 1);
  });

  await t.step("the next run checks it, and reads each file's version anew", async () => {
    assertEquals(await firstListing(ctx), { files: ["a/b/n.py:6", "a/m.py:6"], restored: true });
    await Deno.writeTextFile(at("a/m.py"), "x = 1000\n");
    assertEquals(await firstListing(ctx), { files: ["a/b/n.py:6", "a/m.py:9"], restored: true });
  });

  await t.step("a file added since: its directory moved, so the run walks", async () => {
    await Deno.writeTextFile(at("a/new.py"), "w = 4\n");
    assertEquals(await firstListing(ctx), {
      files: ["a/b/n.py:6", "a/m.py:9", "a/new.py:6"],
      restored: false,
    });
    assertEquals((await firstListing(ctx)).restored, true);
  });

  await t.step(
    "a directory changed just before the listing was taken is listed again",
    async () => {
      // The walk kept a/ with the mtime the new file gave it: a second change within the same
      // tick of a coarse clock (a second, on some file systems) would leave that mtime as it is.
      const { mtime } = await Deno.stat(at("a"));
      await Deno.writeTextFile(at("a/late.py"), "v = 5\n");
      await Deno.utime(at("a"), mtime!, mtime!);
      assertEquals(await firstListing(ctx), {
        files: ["a/b/n.py:6", "a/late.py:6", "a/m.py:9", "a/new.py:6"],
        restored: false,
      });
      await Deno.remove(at("a/late.py"));
    },
  );

  await t.step("a .gitignore changed since: the run walks", async () => {
    await Deno.writeTextFile(at(".gitignore"), "skip/\n# and nothing else\n");
    ageDirs(root.path);
    assertEquals((await firstListing(ctx)).restored, false);
    await Deno.writeTextFile(at(".gitignore"), "");
    ageDirs(root.path);
    assertEquals(await firstListing(ctx), {
      files: ["a/b/n.py:6", "a/m.py:9", "a/new.py:6", "skip/x.py:6"],
      restored: false,
    });
    ageDirs(root.path);
    assertEquals((await firstListing(ctx)).restored, false);
    assertEquals((await firstListing(ctx)).restored, true);
  });

  await t.step("a directory gone since: the run walks", async () => {
    await Deno.remove(at("a/b"), { recursive: true });
    ageDirs(root.path);
    assertEquals(await firstListing(ctx), {
      files: ["a/m.py:9", "a/new.py:6", "skip/x.py:6"],
      restored: false,
    });
  });
});

Deno.test("a listing is kept only in a state directory the host made its own", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/m.py`, "x = 1\n");
  const ctx = await toolContext(root.path);
  await Deno.mkdir(ctx.policy.stateDir, { recursive: true });
  ageDirs(root.path);
  assertEquals((await firstListing(ctx)).restored, false);
  assertEquals((await firstListing(ctx)).restored, false);
  const kept = [...Deno.readDirSync(ctx.policy.stateDir)].map((entry) => entry.name);
  assert(!kept.includes(SCOPES_DIR), kept.join(", "));
});
