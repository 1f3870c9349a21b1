/**
 * `find_usages` and `rename_symbol` on real JavaScript, in the launch users
 * run: a copy of the MCP SDK's ESM build. The SDK's `safeParse` (exported by
 * `server/zod-compat.js`, imported by four other files) is found and renamed
 * without touching Zod's own `schema.safeParse`, strings, comments or the
 * longer `safeParseAsync`; the dry run's diff is what the real run writes;
 * node still parses and imports every changed file.
 */

import { parsePatch } from "diff";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { npmFile, tempDir } from "../../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../../_mcp.ts";

/**
 * The v1 MCP SDK's ESM JavaScript: installed as a dependency of
 * `@modelcontextprotocol/server-filesystem` (the benches' peer), no longer as the project's own.
 */
const SDK =
  npmFile("@modelcontextprotocol/sdk/dist/esm/package.json")?.replace(/package\.json$/, "") ??
    new URL("../../../node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url);

/** The files `safeParse` is in: its definition and the four that import it. */
const CHANGED = [
  "sdk/client/index.js",
  "sdk/server/index.js",
  "sdk/server/zod-compat.js",
  "sdk/server/zod-json-schema-compat.js",
  "sdk/shared/protocol.js",
];

/**
 * Copy the SDK's ESM JavaScript (and its `package.json`) to `dir/project/sdk`,
 * with `dir/node_modules` (outside the root) pointing at the SDK's own
 * dependencies so that node can import the copy.
 */
async function copySdk(dir: string): Promise<string> {
  const root = `${dir}/project`;
  const from = await Deno.realPath(SDK);
  const copy = async (rel: string) => {
    await Deno.mkdir(`${root}/sdk/${rel}`, { recursive: true });
    for await (const entry of Deno.readDir(`${from}/${rel}`)) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) await copy(path);
      else if (/\.js$|^package\.json$/.test(path)) {
        await Deno.copyFile(`${from}/${path}`, `${root}/sdk/${path}`);
      }
    }
  };
  await copy("");
  // .../node_modules/.deno/@modelcontextprotocol+sdk@x/node_modules/@modelcontextprotocol/sdk/dist/esm
  await Deno.symlink(`${from}/../../../../`, `${dir}/node_modules`);
  return root;
}

/** Every file under a directory (but the host's own state), by relative path. */
async function snapshot(root: string, dir = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(`${root}/${dir}`)) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (rel === ".toolhost") continue;
    if (entry.isDirectory) {
      for (const [k, v] of await snapshot(root, rel)) out.set(k, v);
    } else if (entry.isFile) out.set(rel, await Deno.readTextFile(`${root}/${rel}`));
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((path) => before.get(path) !== after.get(path)).sort();
}

/**
 * Check a (possibly cut) multi-file unified diff against the files before and
 * after: every hunk shown is what changed there.
 *
 * @returns How many hunks were checked.
 */
function checkHunks(diff: string, before: Map<string, string>, after: Map<string, string>): number {
  let hunks = 0;
  const shown = diff.split("\n").filter((line) => !line.startsWith("…")).join("\n");
  for (const patch of parsePatch(shown)) {
    const path = patch.oldFileName!.replace(/^a\//, "");
    const old = before.get(path)!.split("\n");
    const now = after.get(path)!.split("\n");
    for (const hunk of patch.hunks) {
      const minus = hunk.lines.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
      const plus = hunk.lines.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
      assertEquals(old.slice(hunk.oldStart - 1, hunk.oldStart - 1 + minus.length), minus, path);
      assertEquals(now.slice(hunk.newStart - 1, hunk.newStart - 1 + plus.length), plus, path);
      hunks++;
    }
  }
  return hunks;
}

async function call(session: StdioSession, tool: string, args: Record<string, unknown>) {
  const result = await session.call(tool, args);
  return {
    error: result.isError === true,
    text: resultText(result),
    data: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

async function node(args: string[]): Promise<{ ok: boolean; err: string }> {
  const output = await new Deno.Command("node", { args, stderr: "piped" }).output();
  return { ok: output.success, err: new TextDecoder().decode(output.stderr) };
}

const ARGS = { path: "sdk/server/zod-compat.js", name: "safeParse" };

Deno.test("rename_symbol renames the SDK's safeParse across its JavaScript files and nothing else", async (t) => {
  await using dir = await tempDir();
  const root = await copySdk(dir.path);
  await using session = await connectStdio([root]);
  const original = await snapshot(root);

  await t.step(
    "find_usages lists the definition, four imports and eleven calls, all exact",
    async () => {
      const found = await call(session, "find_usages", ARGS);
      assert(!found.error, found.text);
      assertEquals(found.data.definition, "sdk/server/zod-compat.js:27-36");
      assertEquals([found.data.total, found.data.unsure], [16, 0]);
      const sites = found.data.sites as Array<{ path: string; role: string }>;
      assertEquals([...new Set(sites.map((s) => s.path))].sort(), CHANGED);
      assertEquals(sites.filter((s) => s.role === "import").length, 4);
      assertEquals(sites.filter((s) => s.role === "call").length, 11);
    },
  );

  let dryDiff = "";
  await t.step("the dry run shows the diff and writes nothing", async () => {
    const dry = await call(session, "rename_symbol", {
      ...ARGS,
      new_name: "parseSafely",
      dry_run: true,
    });
    assert(!dry.error, dry.text);
    assertStringIncludes(
      dry.text,
      'Would rename "safeParse" to "parseSafely" at 16 sites in 5 files',
    );
    assertEquals(changed(original, await snapshot(root)), []);
    dryDiff = dry.data.diff as string;
  });

  await t.step("the real run writes exactly the dry run's diff", async () => {
    const real = await call(session, "rename_symbol", { ...ARGS, new_name: "parseSafely" });
    assert(!real.error, real.text);
    assertStringIncludes(real.text, 'Renamed "safeParse" to "parseSafely" at 16 sites in 5 files');
    assertEquals(real.data.diff, dryDiff);
    const now = await snapshot(root);
    assertEquals(changed(original, now), CHANGED);
    assert(checkHunks(dryDiff, original, now) >= CHANGED.length, "the diff shows every file");
  });

  await t.step("strings, comments, Zod's own method and longer names are unchanged", async () => {
    const now = await snapshot(root);
    const compat = now.get("sdk/server/zod-compat.js")!;
    assertStringIncludes(compat, "// Mini exposes top-level safeParse");
    assertStringIncludes(compat, "z4mini.safeParse(schema, data)");
    assertStringIncludes(compat, "v3Schema.safeParse(data)");
    assertStringIncludes(compat, "export async function safeParseAsync(");
    assertStringIncludes(now.get("sdk/server/index.js")!, "LoggingLevelSchema.safeParse(level)");
    assertStringIncludes(now.get("sdk/server/mcp.js")!, "'safeParse' in value");
    for (const path of CHANGED) {
      const before = original.get(path)!.split("\n");
      const after = now.get(path)!.split("\n");
      assertEquals(after.length, before.length, path);
      after.forEach((line, i) => {
        if (line !== before[i]) {
          assertEquals(line, before[i]!.replace(/(?<![.\w'])safeParse\b(?!')/g, "parseSafely"));
        }
      });
    }
  });

  await t.step("node still parses and imports every changed file", async () => {
    for (const path of CHANGED) {
      const checked = await node(["--check", `${root}/${path}`]);
      assert(checked.ok, `${path}: ${checked.err}`);
    }
    const imports = CHANGED.map((path) => `await import(${JSON.stringify(`${root}/${path}`)});`);
    const script = `${imports.join("\n")}
const m = await import(${JSON.stringify(`${root}/sdk/server/zod-compat.js`)});
if (typeof m.parseSafely !== "function" || "safeParse" in m) throw new Error("not renamed");`;
    const ran = await node(["--input-type=module", "-e", script]);
    assert(ran.ok, ran.err);
  });
});
