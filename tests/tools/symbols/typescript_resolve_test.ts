/**
 * The TS/JS resolver behind `find_usages` and `rename_symbol` (the
 * TypeScript language service), called with a tool context over real temp
 * directories: small fixtures whose expected sites are marked in the source
 * (`⟦name⟧`; every other occurrence of the name — in strings, comments,
 * longer words, other symbols — must not be listed), and a copy of the MCP
 * SDK's ESM JavaScript, renamed and checked with `node --check` and a real
 * `import()`. Where the compiler binds a name differently from what the
 * text suggests (a shorthand property is a symbol of its own), the marks
 * follow the compiler: `bench/ts_oracle_bench.ts` holds the tool to it on
 * real packages.
 */

import { assert, assertEquals, assertMatch, assertRejects } from "../../_assert.ts";
import { npmFile, tempDir, toolContext } from "../../_helpers.ts";
import type { SymbolSites } from "../../../tools/symbols/_resolver.ts";
import { Skipped } from "../../../tools/_skipped.ts";
import { applyRename, asMarks, unmark, writeTree } from "./_fixtures.ts";
import type { ToolContext } from "../../../tools/tool.ts";
import { grammarForPath } from "../../../tools/grammars.ts";
import { DeclaredTreeSitter as TreeSitter } from "../../../tools/declared_tree_sitter.ts";
import { TS_SERVICE_RESOLVER } from "../../../tools/typescript/_service.ts";
import { SourceIndex } from "../../../tools/symbols/_source_index.ts";

async function find(ctx: ToolContext, path: string, name: string): Promise<SymbolSites> {
  return await TS_SERVICE_RESOLVER.findSites(ctx, { path, name }, ".", new Skipped());
}

/** Whether node parses a file (`node --check`), as the module type its extension says. */
async function nodeParses(path: string, text: string): Promise<boolean> {
  const type = path.endsWith(".cjs") ? "commonjs" : "module";
  const child = new Deno.Command("node", {
    args: ["--check", `--input-type=${type}`],
    stdin: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  return (await child.output()).success;
}

/** Whether tree-sitter parses a TypeScript or JSX file without errors. */
async function treeParses(path: string, text: string): Promise<boolean> {
  const tree = await new TreeSitter().parseText(text, grammarForPath(path)!);
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

// ---- a module-level function across ES modules, CommonJS and scopes ----

const PROJECT = unmark({
  "a.ts": `// greet() says hello; "greet" in a comment
export function ⟦greet⟧(name: string): string {
  return "greet " + name;
}
export const greeting = ⟦greet⟧("a"); // a longer word: greeting
export class Client {
  ⟦connect⟧(): void {
    this.⟦connect⟧();
  }
  static ⟦create⟧(): Client {
    return new Client();
  }
}
export class Sub extends Client {
  override ⟦connect⟧(): void {
    super.⟦connect⟧();
  }
}
export class Unrelated {
  connect(): void {}
  static create(): void {}
}
`,
  "b.ts": `import { ⟦greet⟧, Client, Sub, Unrelated } from "./a.js";
export { ⟦greet⟧ as welcome } from "./a.js";
⟦greet⟧("b");
function shadow(greet: number): number {
  return greet;
}
function hoisted(): number {
  greet;
  var greet = 2;
  return greet;
}
function caught(): void {
  try {
    ⟦greet⟧("x");
  } catch (greet) {
    console.log(greet);
  }
}
{
  let greet = 3;
  greet++;
}
const label = \`greet \${⟦greet⟧("t")}\`;
const c = new Client();
c.⟦connect⟧();
const s = new Sub();
s.⟦connect⟧();
new Unrelated().connect();
function typed(k: Client, u: Unrelated, x: any): void {
  k.⟦connect⟧();
  u.connect();
  x.connect();
}
const o = { connect: 1 };
Client.⟦create⟧();
Sub.⟦create⟧();
Unrelated.create();
c.create;
export { shadow, hoisted, caught, label, typed, o };
`,
  "c.js": `import * as A from "./a.js";
A.⟦greet⟧("c");
A["⟦greet⟧"]("c");
const other = { greet() { return 1; } };
other.greet();
someone.greet();
`,
  "barrel/index.ts": `export * from "../a.js";
export * as lib from "../a.js";
`,
  "d.mjs": `import { ⟦greet⟧ } from "./barrel/index.js";
import { lib } from "./barrel";
lib.⟦greet⟧("d");
⟦greet⟧("d");
`,
  "e.cjs": `function ⟦hello⟧() {
  return "hello";
}
module.exports = { ⟦hello⟧, other: 1 };
`,
  "f.cjs": `const { hello } = require("./e.cjs");
const e = require("./e.cjs");
hello();
e.hello();
const a = require("./a.js");
a.greet("f");
function other() {
  const hello = 1;
  return hello;
}
`,
  "k.cjs": `exports.⟦ping⟧ = function () {
  return "ping";
};
exports.pong = () => exports.⟦ping⟧();
`,
  "l.cjs": `const k = require("./k.cjs");
k.⟦ping⟧();
const ping = "ping";
module.exports = { ping };
`,
  "m.js": `export function ⟦shout⟧() {}
export const api = { ⟦shout⟧ };
export { ⟦shout⟧ as yell };
export default ⟦shout⟧;
`,
  "n.js": `import loud, { yell, api } from "./m.js";
import * as M from "./m.js";
api.shout();
M.⟦shout⟧();
somebody.shout();
loud();
yell();
`,
  "lib/util.js": `export function trim(s) {
  return s.trim();
}
`,
  "lib/util.d.ts": `export declare function ⟦trim⟧(s: string): string;
`,
  "use.ts": `import { ⟦trim⟧ } from "./lib/util.js";
export const t = ⟦trim⟧(" x ");
`,
  "g.jsx": `import { ⟦Button⟧ } from "./h.jsx";
export const App = () => <⟦Button⟧ label="Button">Button</⟦Button⟧>;
`,
  "h.jsx": `export function ⟦Button⟧(props) {
  return <button>{props.label}</button>;
}
`,
});

/** The sites that are not reached through another name, as marks. */
function ownMarks(found: SymbolSites): string[] {
  return asMarks(found.sites.filter((site) => site.via === undefined));
}

/** The sites reached through another name: `path:line name role`. */
function viaSites(found: SymbolSites): string[] {
  return found.sites.filter((site) => site.via !== undefined)
    .map((site) => `${site.path}:${site.line} ${site.via} ${site.role}`);
}

Deno.test("the TS/JS resolver finds a function's uses through ES imports, re-exports and namespaces, not other symbols", async (t) => {
  await using root = await tempDir();
  await writeTree(root.path, PROJECT.files);
  const ctx = await toolContext(root.path);
  await t.step("a function across modules, scopes and namespaces", async () => {
    const found = await find(ctx, "a.ts", "greet");
    assertEquals(ownMarks(found), PROJECT.marks("greet"));
    assertEquals(found.definition, "a.ts:2-4");
    assertEquals(found.sites[0]!.role, "definition");
    const roles = new Map(found.sites.map((s) => [`${s.path}:${s.line}`, s.role]));
    assertEquals(roles.get("b.ts:1"), "import");
    assertEquals(roles.get("b.ts:2"), "export");
    assertEquals(roles.get("b.ts:3"), "call");
    assertEquals(roles.get("c.js:2"), "call");
    assert(found.sites.every((s) => s.certainty === "exact"));
  });
  await t.step("a re-export's new name is listed as reached through it", async () => {
    const found = await find(ctx, "a.ts", "greet");
    assertEquals(viaSites(found), ["b.ts:2 welcome export"]);
  });
  await t.step("the same name asked from an importing file is the imported symbol", async () => {
    const found = await find(ctx, "b.ts", "greet");
    assertEquals(ownMarks(found), PROJECT.marks("greet"));
  });
  await t.step("CommonJS: a destructured require reaches the exported property", async () => {
    // `module.exports = { hello }` makes a property of its own: asked from the function, its
    // uses are the file's; asked from the requiring file, the property's uses and the function.
    const fromFunction = await find(ctx, "e.cjs", "hello");
    assertEquals(ownMarks(fromFunction), PROJECT.marks("hello"));
    const fromRequire = await find(ctx, "f.cjs", "hello");
    const lines = fromRequire.sites.map((s) => `${s.path}:${s.line}`);
    for (const line of ["e.cjs:1", "e.cjs:4", "f.cjs:1", "f.cjs:3"]) {
      assert(lines.includes(line), `${line} not in ${lines.join(", ")}`);
    }
  });
  await t.step("CommonJS exports.name", async () => {
    const found = await find(ctx, "k.cjs", "ping");
    assertEquals(ownMarks(found), PROJECT.marks("ping"));
  });
  await t.step("a default export and an export alias: listed through their names", async () => {
    const found = await find(ctx, "m.js", "shout");
    assertEquals(ownMarks(found), PROJECT.marks("shout"));
    assertEquals(viaSites(found), [
      "m.js:3 yell export",
      "n.js:1 loud import",
      "n.js:1 yell import",
      "n.js:6 loud call",
      "n.js:7 yell call",
    ]);
  });
  await t.step("a declaration file is what a TypeScript importer binds to", async () => {
    const fromTypes = await find(ctx, "lib/util.d.ts", "trim");
    assertEquals(ownMarks(fromTypes), PROJECT.marks("trim"));
    const fromScript = await find(ctx, "lib/util.js", "trim");
    assertEquals(fromScript.sites.map((s) => `${s.path}:${s.line}`), ["lib/util.js:1"]);
  });
  await t.step("a JSX component's opening and closing tags, not its text", async () => {
    const found = await find(ctx, "h.jsx", "Button");
    assertEquals(ownMarks(found), PROJECT.marks("Button"));
  });
});

Deno.test("the TS/JS resolver finds class members through this, super, overrides, typed receivers and statics", async (t) => {
  await using root = await tempDir();
  await writeTree(root.path, PROJECT.files);
  const ctx = await toolContext(root.path);
  await t.step(
    "an instance method, its override and their calls; not an untyped receiver's",
    async () => {
      const found = await find(ctx, "a.ts", "Client.connect");
      assertEquals(ownMarks(found), PROJECT.marks("connect"));
    },
  );
  await t.step("a static method, through a subclass too", async () => {
    const found = await find(ctx, "a.ts", "Client.create");
    assertEquals(ownMarks(found), PROJECT.marks("create"));
  });
  await t.step("a name the file does not define", async () => {
    const error = await assertRejects(() => find(ctx, "a.ts", "Client.nothing"));
    assertMatch(String(error), /Cannot find "Client\.nothing" in "a\.ts"/);
  });
});

Deno.test("the TS/JS resolver: merged declarations are one symbol, with their type and value uses", async () => {
  await using root = await tempDir();
  const { files, marks } = unmark({
    "core.ts": `export interface ⟦Shape⟧ { area(): number }
export function ⟦Shape⟧(): ⟦Shape⟧ { return { area: () => 0 }; }
export namespace ⟦Shape⟧ { export const unit = 1; }
`,
    "use.ts": `import * as core from "./core.js";
export * from "./core.js";
const s: core.⟦Shape⟧ = core.⟦Shape⟧();
export const n = core.⟦Shape⟧.unit + s.area();
`,
    "deep.ts": `import { ⟦Shape⟧ } from "./use.js";
export const d: ⟦Shape⟧ = ⟦Shape⟧();
export const u = ⟦Shape⟧.unit;
`,
  });
  await writeTree(root.path, files);
  const ctx = await toolContext(root.path);
  const found = await find(ctx, "core.ts", "Shape");
  assertEquals(ownMarks(found), marks("Shape"));
  assertEquals(found.sites.filter((s) => s.role === "definition").length, 3);
});

Deno.test("a TS/JS rename writes what the compiler's rename writes: shorthand keys kept, aliases left", async () => {
  await using root = await tempDir();
  await writeTree(root.path, PROJECT.files);
  const ctx = await toolContext(root.path);
  const found = await find(ctx, "m.js", "shout");
  const after = applyRename(PROJECT.files, found.renameSites!(), { from: "shout", to: "call" });
  assertEquals(Object.keys(after).sort(), ["m.js", "n.js"]);
  assertEquals(
    after["n.js"],
    PROJECT.files["n.js"]!.replace("M.shout();", "M.call();"),
    "only the namespace member is renamed: api's key, loud and yell stay",
  );
  assertEquals(
    after["m.js"],
    `export function call() {}
export const api = { shout: call };
export { call as yell };
export default call;
`,
  );
});

Deno.test("a rename of the TS/JS fixture's sites changes nothing else and still parses", async () => {
  await using root = await tempDir();
  await writeTree(root.path, PROJECT.files);
  const ctx = await toolContext(root.path);
  const found = await find(ctx, "a.ts", "greet");
  const after = applyRename(PROJECT.files, found.renameSites!(), { from: "greet", to: "salute" });
  assertEquals(Object.keys(after).sort(), ["a.ts", "b.ts", "c.js", "d.mjs"]);
  assert(after["a.ts"]!.includes(`"greet " + name`), "a string changed");
  assert(after["a.ts"]!.includes(`// greet() says hello`), "a comment changed");
  assert(after["a.ts"]!.includes("export const greeting = salute("), "a longer word changed");
  assert(after["b.ts"]!.includes("return greet;"), "a shadowing name changed");
  assert(after["b.ts"]!.includes("export { salute as welcome }"), "the re-export's name changed");
  assert(after["c.js"]!.includes(`A["salute"]`), "a string key was left");
  for (const [path, text] of Object.entries(after)) {
    const parses = /\.[mc]?js$/.test(path) ? nodeParses(path, text) : treeParses(path, text);
    assert(await parses, `${path} no longer parses`);
  }
});

Deno.test("the TS/JS resolver sees a changed file on the next call (the index is keyed by version)", async () => {
  await using root = await tempDir();
  await writeTree(root.path, PROJECT.files);
  const ctx = await toolContext(root.path);
  const before = await find(ctx, "a.ts", "greet");
  await Deno.writeTextFile(`${root.path}/d.mjs`, `${PROJECT.files["d.mjs"]}greet("again");\n`);
  const after = await find(ctx, "a.ts", "greet");
  assertEquals(after.sites.length, before.sites.length + 1);
  assert(after.sites.some((s) => s.path === "d.mjs" && s.line === 5));
});

Deno.test("the TS/JS resolver refuses names that are no identifiers", () => {
  assertEquals(TS_SERVICE_RESOLVER.invalidName!("class"), `"class" is a reserved word`);
  assertEquals(TS_SERVICE_RESOLVER.invalidName!("9lives"), "it is not a JavaScript identifier");
  assertEquals(TS_SERVICE_RESOLVER.invalidName!("ok_$1"), undefined);
});

// ---- real code: the MCP SDK's ESM JavaScript ----

/**
 * The v1 MCP SDK's ESM JavaScript: installed as a dependency of
 * `@modelcontextprotocol/server-filesystem` (the benches' peer), no longer as the project's own.
 */
const SDK =
  npmFile("@modelcontextprotocol/sdk/dist/esm/package.json")?.replace(/package\.json$/, "") ??
    new URL("../../../node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url);

/**
 * Copy the SDK's ESM JavaScript (and its `package.json`) to `root/sdk`, with
 * `root/node_modules` pointing at the SDK's own dependencies so that node can
 * import the copy.
 */
async function copySdk(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const from = await Deno.realPath(SDK);
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${from}/${dir}`)) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(rel);
      else if (/\.js$|^package\.json$/.test(rel)) {
        files[`sdk/${rel}`] = await Deno.readTextFile(`${from}/${rel}`);
      }
    }
  };
  await walk("");
  await writeTree(root, files);
  // .../node_modules/.deno/@modelcontextprotocol+sdk@x/node_modules/@modelcontextprotocol/sdk/dist/esm
  await Deno.symlink(`${from}/../../../../`, `${root}/node_modules`);
  return files;
}

/** The sites of `safeParse` (server/zod-compat.js), checked with `grep -rnw safeParse`: the other
 * 27 occurrences are Zod's own `schema.safeParse`, `z4mini.safeParse`, a string and comments. */
const SAFE_PARSE_SITES = [
  "sdk/server/zod-compat.js:27:17 definition",
  "sdk/client/index.js:4:43 import",
  "sdk/client/index.js:182:42 call",
  "sdk/client/index.js:200:50 call",
  "sdk/client/index.js:210:42 call",
  "sdk/client/index.js:235:42 call",
  "sdk/client/index.js:244:50 call",
  "sdk/client/index.js:256:42 call",
  "sdk/server/index.js:4:43 import",
  "sdk/server/index.js:108:42 call",
  "sdk/server/index.js:117:50 call",
  "sdk/server/index.js:127:42 call",
  "sdk/server/zod-json-schema-compat.js:7:26 import",
  "sdk/server/zod-json-schema-compat.js:45:20 call",
  "sdk/shared/protocol.js:1:10 import",
  "sdk/shared/protocol.js:724:41 call",
];

Deno.test("the TS/JS resolver renames the SDK's safeParse across its files: node still parses and imports them", async () => {
  await using root = await tempDir();
  const files = await copySdk(root.path);
  const ctx = await toolContext(root.path);
  const found = await find(ctx, "sdk/server/zod-compat.js", "safeParse");
  assertEquals(
    found.sites.map((s) => `${s.path}:${s.line}:${s.column} ${s.role}`),
    SAFE_PARSE_SITES,
  );
  assert(found.sites.every((s) => s.certainty === "exact"));
  const after = applyRename(files, found.sites, { from: "safeParse", to: "parseSafely" });
  assertEquals(Object.keys(after).sort(), [
    "sdk/client/index.js",
    "sdk/server/index.js",
    "sdk/server/zod-compat.js",
    "sdk/server/zod-json-schema-compat.js",
    "sdk/shared/protocol.js",
  ]);
  const left = Object.entries(after).flatMap(([path, text]) =>
    text.split("\n").flatMap((line, i) => /\bsafeParse\b/.test(line) ? [`${path}:${i + 1}`] : [])
  ).sort();
  // What stays: Zod's own method, a string, comments, and the longer safeParseAsync.
  assertEquals(left, [
    "sdk/client/index.js:566",
    "sdk/server/index.js:58",
    "sdk/server/zod-compat.js:29",
    "sdk/server/zod-compat.js:30",
    "sdk/server/zod-compat.js:34",
  ]);
  assert(after["sdk/server/zod-compat.js"]!.includes("export async function safeParseAsync("));
  await writeTree(root.path, after);
  for (const path of Object.keys(after)) {
    assert(await nodeParses(path, after[path]!), `${path} no longer parses`);
  }
  const imports = Object.keys(after).map((path) =>
    `await import(${JSON.stringify(`${root.path}/${path}`)});`
  );
  const check = `${imports.join("\n")}
const m = await import(${JSON.stringify(`${root.path}/sdk/server/zod-compat.js`)});
if (typeof m.parseSafely !== "function" || "safeParse" in m) throw new Error("not renamed");`;
  const run = await new Deno.Command("node", {
    args: ["--input-type=module", "-e", check],
    stderr: "piped",
  }).output();
  assert(run.success, new TextDecoder().decode(run.stderr));
});

Deno.test("the resolvers' index keeps unchanged files by version and stays within its budget", async () => {
  await using root = await tempDir();
  await writeTree(root.path, { "a.js": "export const a = 1;\n", "b.js": "export const b = 2;\n" });
  const ctx = await toolContext(root.path);
  const index = new SourceIndex<{ weight: number }>((facts) => facts.weight, 1_000);
  const accept = (name: string) => name.endsWith(".js");
  const first = await index.scan(ctx, ".", accept, new Skipped());
  const a = first.files.get(`${root.path}/a.js`)!;
  const b = first.files.get(`${root.path}/b.js`)!;
  a.facts = { weight: 400 };
  b.facts = { weight: 400 };
  await Deno.writeTextFile(`${root.path}/b.js`, "export const b = 3; // changed\n");
  const second = await index.scan(ctx, ".", accept, new Skipped());
  assert(second.files.get(`${root.path}/a.js`) === a, "an unchanged file was read again");
  assert(second.files.get(`${root.path}/b.js`) !== b, "a changed file was not read again");
  second.files.get(`${root.path}/b.js`)!.facts = { weight: 900 };
  await index.scan(ctx, ".", accept, new Skipped());
  assert(index.stats().bytes <= 1_000, `over budget: ${index.stats().bytes}`);
  assertEquals(index.stats().files, 2);
});

Deno.test("the compiler reads nothing outside the roots: imports, references and a tsconfig's extends that point out are not followed", async () => {
  await using outside = await tempDir();
  await using root = await tempDir();
  await writeTree(outside.path, {
    "secret.ts": "export const secret = 42;\n",
    "base.json": `{ "compilerOptions": { "paths": { "x": ["${outside.path}/secret.ts"] } } }\n`,
  });
  await writeTree(root.path, {
    "tsconfig.json": JSON.stringify({ extends: `${outside.path}/base.json` }),
    "a.ts": `/// <reference path="${outside.path}/secret.ts" />
import { secret } from "${outside.path}/secret";
import { secret as again } from "../${outside.path.split("/").at(-1)}/secret";
export const v = secret + again;
`,
  });
  const ctx = await toolContext(root.path);
  const found = await find(ctx, "a.ts", "v");
  assertEquals(found.sites.map((s) => `${s.path}:${s.line}`), ["a.ts:4"]);
  const { scopeService } = await import("../../../tools/typescript/_service_host.ts");
  const scoped = await scopeService(ctx, ".", new Skipped());
  const read = scoped.service.getProgram()!.getSourceFiles().map((file) => file.fileName)
    .filter((name) => !name.includes("/node_modules/typescript/lib/"));
  assertEquals(read, [`${await Deno.realPath(root.path)}/a.ts`]);
});
