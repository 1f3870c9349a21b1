import { assert, assertEquals, assertRejects } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { Anchor } from "../../../security/anchored.ts";
import { ToolError } from "../../../security/errors.ts";
import { resolvePolicy } from "../../../security/policy.ts";
import { Resolver } from "../../../security/resolver.ts";
import { SafeFs } from "../../../security/safe_fs.ts";
import { type ToolContext, YIELD_EVERY_MS } from "../../../tools/tool.ts";
import { comparePaths, globMatcher, walk, type WalkOptions } from "../../../tools/_walk.ts";

/** A real tool context over real roots (no worker): the walker's own surface. */
async function context(
  roots: string[],
  options: { blacklist?: string[]; signal?: AbortSignal; messageWaiting?: () => boolean } = {},
): Promise<{ ctx: ToolContext; progress: number[] }> {
  const policy = await resolvePolicy({ roots, blacklist: options.blacklist ?? [] });
  const resolver = new Resolver(policy);
  const fs = new SafeFs(
    resolver,
    new Anchor(policy.roots),
  );
  const progress: number[] = [];
  const ctx: ToolContext = {
    policy,
    resolver,
    fs,
    signal: options.signal ?? new AbortController().signal,
    messageWaiting: options.messageWaiting ?? (() => false),
    progress: (done) => progress.push(done),
    logger: { warn: () => {}, error: () => {} },
    binaries: {},
    shared: (_key, make) => make(),
  };
  return { ctx, progress };
}

async function collect(ctx: ToolContext, dir: string, options?: WalkOptions): Promise<string[]> {
  const start = await ctx.fs.resolve(dir, "directory");
  const out: string[] = [];
  for await (const entry of walk(ctx, start, options)) {
    out.push(`${entry.depth} ${entry.display}${entry.kind === "directory" ? "/" : ""}`);
  }
  return out;
}

async function write(path: string, text = "x\n"): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("walk yields depth-first, sorted by name, a directory before its children", async () => {
  await using root = await tempDir();
  for (const p of ["b.txt", "a/z.txt", "a/b/c.txt", "a.txt", "c/d.txt"]) {
    await write(`${root.path}/${p}`);
  }
  const { ctx } = await context([root.path]);
  assertEquals(await collect(ctx, "."), [
    "1 a/",
    "2 a/b/",
    "3 a/b/c.txt",
    "2 a/z.txt",
    "1 a.txt",
    "1 b.txt",
    "1 c/",
    "2 c/d.txt",
  ]);
  assertEquals(await collect(ctx, "a", { filesOnly: true }), ["2 a/b/c.txt", "1 a/z.txt"]);
  assertEquals(await collect(ctx, ".", { maxDepth: 1 }), ["1 a/", "1 a.txt", "1 b.txt", "1 c/"]);
  assertEquals(await collect(ctx, ".", { maxDepth: 0 }), []);
});

Deno.test("walk skips .git, node_modules and .gitignore'd entries unless told not to", async () => {
  await using root = await tempDir();
  for (
    const p of [
      ".git/HEAD",
      "node_modules/m/i.js",
      "src/a.py",
      "build/out.o",
      "src/x.log",
      "keep.log",
    ]
  ) {
    await write(`${root.path}/${p}`);
  }
  await write(`${root.path}/.gitignore`, "build/\n*.log\n!keep.log\n");
  const { ctx } = await context([root.path]);
  const files = async (options: WalkOptions) =>
    (await collect(ctx, ".", { ...options, filesOnly: true })).map((l) => l.slice(2));
  assertEquals(await files({}), [".gitignore", "keep.log", "src/a.py"]);
  assertEquals(await files({ gitignore: false }), [
    ".gitignore",
    "build/out.o",
    "keep.log",
    "src/a.py",
    "src/x.log",
  ]);
  assertEquals(await files({ skipDefaults: false }), [
    ".git/HEAD",
    ".gitignore",
    "keep.log",
    "node_modules/m/i.js",
    "src/a.py",
  ]);
});

Deno.test("walk applies the .gitignore files above its start, up to the root", async () => {
  await using root = await tempDir();
  await write(`${root.path}/.gitignore`, "*.tmp\n/src/gen/\n");
  await write(`${root.path}/src/.gitignore`, "local_*\n");
  for (const p of ["src/lib/a.py", "src/lib/b.tmp", "src/lib/local_c.py", "src/gen/g.py"]) {
    await write(`${root.path}/${p}`);
  }
  const { ctx } = await context([root.path]);
  assertEquals(await collect(ctx, "src/lib"), ["1 src/lib/a.py"]);
  assertEquals(await collect(ctx, "src", { maxDepth: 1 }), ["1 src/.gitignore", "1 src/lib/"]);
});

Deno.test("walk never goes through symlinks and hides blacklisted entries", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await write(`${outside.path}/secret.txt`, "s3cret");
  await write(`${root.path}/in/a.txt`);
  await write(`${root.path}/secrets/key.pem`);
  await Deno.symlink(outside.path, `${root.path}/out_dir`);
  await Deno.symlink(`${outside.path}/secret.txt`, `${root.path}/out_file.txt`);
  await Deno.symlink(`${root.path}/in`, `${root.path}/in_link`);
  const { ctx } = await context([root.path], { blacklist: ["secrets"] });
  assertEquals(await collect(ctx, "."), ["1 in/", "2 in/a.txt"]);
});

Deno.test("walk throws the signal's reason when the call is aborted", async () => {
  await using root = await tempDir();
  for (let i = 0; i < 50; i++) await write(`${root.path}/d${i}/f.txt`);
  const controller = new AbortController();
  const { ctx } = await context([root.path], { signal: controller.signal });
  const start = await ctx.fs.resolve(".", "directory");
  let seen = 0;
  await assertRejects(async () => {
    for await (const _ of walk(ctx, start)) {
      if (++seen === 10) {
        controller.abort(new ToolError("cancelled", "the client cancelled the call"));
      }
    }
  }, ToolError);
  assert(seen < 20, `the walk went on for ${seen} entries after the abort`);
});

Deno.test("walk yields at once when a message waits for the worker (a cancellation)", async () => {
  await using root = await tempDir();
  for (let i = 0; i < 200; i++) await write(`${root.path}/d${i}/f.txt`);
  const controller = new AbortController();
  let waiting = false;
  const { ctx } = await context([root.path], {
    signal: controller.signal,
    messageWaiting: () => waiting,
  });
  const start = await ctx.fs.resolve(".", "directory");
  let seen = 0;
  await assertRejects(async () => {
    for await (const _ of walk(ctx, start)) {
      if (++seen === 10) {
        // As in a worker: the cancellation waits in the mailbox, and only a turn of the event
        // loop lets it in. The whole walk takes less than a scheduled yield's interval.
        waiting = true;
        setTimeout(() => controller.abort(new ToolError("cancelled", "the client cancelled")), 0);
      }
    }
  }, ToolError);
  assert(seen < 15, `the walk went on for ${seen} entries after the message came`);
});

Deno.test("walk keeps the event loop turning and reports progress on long walks", async () => {
  await using root = await tempDir();
  for (let i = 0; i < 300; i++) await write(`${root.path}/d${i % 30}/f${i}.txt`);
  const { ctx, progress } = await context([root.path]);
  const start = await ctx.fs.resolve(".", "directory");
  // A timer that sets itself again each time it runs: it runs once per turn of the event loop.
  let turns = 0;
  const turn = () => {
    turns++;
    timer = setTimeout(turn, 0);
  };
  let timer = setTimeout(turn, 0);
  let entries = 0;
  try {
    for await (const _ of walk(ctx, start)) {
      entries++;
      // Make each entry cost a little: the walk takes at least four turns of the event loop.
      const until = performance.now() + (YIELD_EVERY_MS * 4) / 330;
      while (performance.now() < until) { /* busy */ }
    }
  } finally {
    clearTimeout(timer);
  }
  const turnsDuringWalk = turns;
  assertEquals(entries, 330);
  assert(turnsDuringWalk >= 2, `the event loop turned ${turnsDuringWalk} times during the walk`);
  assert(progress.length === 0 || progress.every((p, i) => i === 0 || p >= progress[i - 1]!));
});

Deno.test("comparePaths orders paths as the walk does; globMatcher matches names or paths", () => {
  const paths = ["a.txt", "a/z", "a/b/c", "b", "a-b/x"];
  assertEquals([...paths].sort(comparePaths), ["a/b/c", "a/z", "a-b/x", "a.txt", "b"]);
  const byName = globMatcher("*.py");
  assert(byName("x/y/z.py") && byName("z.py") && !byName("z.pyc"));
  const byPath = globMatcher("src/**/*.py");
  assert(byPath("src/a.py") && byPath("src/x/y/a.py") && !byPath("lib/src/a.py"));
  assert(globMatcher("./*.{ts,tsx}")("deep/a.tsx"));
});
