/**
 * The TypeScript/JavaScript tools on real code: this repository's own
 * modules and the MCP SDK's JavaScript.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { canRun, npmFile, quickRun, tempDir, testHost, textOf } from "../../_helpers.ts";

const REPO = new URL("../../../", import.meta.url).pathname;
/**
 * A file of the v1 MCP SDK, a large body of real code: installed as a dependency of
 * `@modelcontextprotocol/server-filesystem` (the benches' peer), no longer as the project's own.
 */
function sdkFile(tail: string): string {
  return npmFile(`@modelcontextprotocol/sdk/${tail}`) ??
    `${REPO}node_modules/@modelcontextprotocol/sdk/${tail}`;
}
const SDK_TYPES = sdkFile("dist/esm/types.d.ts");
const SDK_CLIENT = sdkFile("dist/esm/client/index.js");

interface Outline {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  children: Outline[];
}

function lineOf(text: string, pattern: RegExp): number {
  return text.split("\n").findIndex((line) => pattern.test(line)) + 1;
}

Deno.test("ts_js tools on this repository's TypeScript and the SDK's JavaScript", async (t) => {
  await using root = await tempDir();
  await Deno.copyFile(`${REPO}host/workers/pool.ts`, `${root.path}/worker_pool.ts`);
  await Deno.copyFile(`${REPO}tools/registry.ts`, `${root.path}/registry.ts`);
  await Deno.copyFile(SDK_CLIENT, `${root.path}/client.js`);
  await using host = await testHost({ roots: [root.path] });
  const registry = await Deno.readTextFile(`${root.path}/registry.ts`);

  await t.step(
    "the outline finds classes, methods, interfaces and functions at their lines",
    async () => {
      const result = await host.call("ts_js_get_code_outline", { path: "registry.ts" });
      const symbols = (result.structuredContent as { symbols: Outline[] }).symbols;
      const cls = symbols.find((s) => s.name === "Registry")!;
      assertEquals(cls.kind, "class");
      assertEquals(cls.start_line, lineOf(registry, /^export class Registry/));
      const call = cls.children.find((s) => s.name === "call")!;
      assertEquals(call.kind, "method");
      assertEquals(call.start_line, lineOf(registry, /^ {2}async call\(/));
      assertEquals(symbols.find((s) => s.name === "ToolDescriptor")?.kind, "interface");
      assertEquals(symbols.find((s) => s.name === "errorResult")?.kind, "function");
      const js = await host.call("ts_js_get_code_outline", { path: "client.js" });
      const client = (js.structuredContent as { symbols: Outline[] }).symbols.find((s) =>
        s.name === "Client"
      )!;
      assert(
        client.children.some((s) => s.name === "callTool" && s.kind === "method"),
        "Client.callTool in the SDK",
      );
    },
  );

  await t.step("definitions by dotted name, exactly the whole lines", async () => {
    const got = await host.call("ts_js_get_definition", {
      path: "registry.ts",
      name: "Registry.has",
    });
    const source = got.structuredContent as {
      source: string;
      start_line: number;
      end_line: number;
    };
    const lines = registry.split("\n").slice(source.start_line - 1, source.end_line).join("\n") +
      "\n";
    assertEquals(source.source, lines);
    assertMatch(source.source, /^ {2}has\(name: string\): boolean \{/);
    assertMatch(
      textOf(await host.call("ts_js_get_definition", { path: "registry.ts", name: "Nope" })),
      /^not_found: /,
    );
    const callTool = await host.call("ts_js_get_definition", {
      path: "client.js",
      name: "Client.callTool",
    });
    assertStringIncludes(textOf(callTool), "async callTool(");
  });

  await t.step("the skeleton keeps signatures and drops bodies", async () => {
    const skeleton = textOf(await host.call("ts_js_get_skeleton", { path: "registry.ts" }));
    assertMatch(
      skeleton,
      /has\(name: string\): boolean \{ \.\.\. \/\* registry\.ts:\d+-\d+ \*\/ \}/,
    );
    assertStringIncludes(skeleton, "export interface ToolDescriptor {");
    assert(skeleton.length < registry.length * 0.8, "smaller");
  });

  await t.step(
    "updating every method with its own text leaves the files byte-identical",
    async () => {
      for (const path of ["worker_pool.ts", "registry.ts", "client.js"]) {
        const before = await Deno.readFile(`${root.path}/${path}`);
        const outline = await host.call("ts_js_get_code_outline", { path });
        const flat = (s: Outline[], scope = ""): string[] =>
          s.flatMap((
            each,
          ) => [`${scope}${each.name}`, ...flat(each.children, `${scope}${each.name}.`)]);
        const names = flat((outline.structuredContent as { symbols: Outline[] }).symbols).filter((
          n,
          i,
          all,
        ) => all.indexOf(n) === i);
        let updated = 0;
        for (const name of names.slice(0, 40)) {
          const got = await host.call("ts_js_get_definition", { path, name });
          if (got.isError) continue;
          const result = await host.call("ts_js_update_definition", {
            path,
            name,
            content: (got.structuredContent as { source: string }).source,
          });
          assertFalse(result.isError, `${path} ${name}: ${textOf(result)}`);
          updated++;
        }
        assert(updated >= 5, `${path}: ${updated} definitions round-tripped`);
        assertEquals(await Deno.readFile(`${root.path}/${path}`), before, `${path} byte-identical`);
      }
    },
  );

  await t.step("an update that breaks the syntax is refused", async () => {
    await host.call("read_file", { path: "registry.ts" });
    const broken = await host.call("ts_js_update_definition", {
      path: "registry.ts",
      name: "Registry.has",
      content: "  has(name: string): boolean {\n    return this.#tools.has(name\n",
    });
    assertMatch(textOf(broken), /^syntax_error: /);
  });
});

/** What `deno doc --json` says of a declaration (its lines are 0-based). */
interface DocDeclaration {
  kind: string;
  location: { line: number };
  def?: { methods?: Array<{ name: string; location: { line: number } }> };
}

Deno.test(
  "ts_js_get_code_outline agrees with `deno doc` on this repository's modules and the SDK's types.d.ts",
  { ignore: quickRun },
  async () => {
    await using root = await tempDir();
    const files = ["tools", "tools/files", "security"].flatMap((dir) =>
      [...Deno.readDirSync(`${REPO}${dir}`)]
        .filter((entry) => entry.isFile && entry.name.endsWith(".ts"))
        .map((entry) => `${dir}/${entry.name}`)
    );
    files.push(SDK_TYPES.slice(REPO.length));
    const doc = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--json", ...files.map((file) => `${REPO}${file}`)],
      stderr: "null",
    }).output();
    assert(doc.success, "deno doc runs");
    const nodes = JSON.parse(new TextDecoder().decode(doc.stdout)).nodes as Record<
      string,
      { symbols: Array<{ name: string; declarations: DocDeclaration[] }> }
    >;
    for (const [i, file] of files.entries()) {
      await Deno.copyFile(
        `${REPO}${file}`,
        `${root.path}/f${i}.${file.endsWith(".d.ts") ? "d.ts" : "ts"}`,
      );
    }
    await using host = await testHost({ roots: [root.path] });
    const KINDS: Record<string, string> = {
      function: "function",
      class: "class",
      interface: "interface",
      typeAlias: "type",
      enum: "enum",
      namespace: "namespace",
    };
    let compared = 0;
    let methods = 0;
    const kinds = new Set<string>();
    const wrong: string[] = [];
    for (const [i, file] of files.entries()) {
      const symbols = nodes[`file://${REPO}${file}`]?.symbols ?? [];
      const path = `f${i}.${file.endsWith(".d.ts") ? "d.ts" : "ts"}`;
      const result = await host.call("ts_js_get_code_outline", { path });
      assertFalse(result.isError, textOf(result));
      const ours = (result.structuredContent as { symbols: Outline[] }).symbols;
      const has = (list: Outline[], kind: string, name: string, line: number) =>
        list.some((s) => s.kind === kind && s.name === name && s.start_line === line);
      for (const symbol of symbols) {
        for (const declaration of symbol.declarations) {
          const kind = KINDS[declaration.kind];
          if (!kind) continue;
          compared++;
          kinds.add(kind);
          if (!has(ours, kind, symbol.name, declaration.location.line + 1)) {
            wrong.push(`${file}:${declaration.location.line} ${kind} ${symbol.name}`);
          }
          for (const method of declaration.def?.methods ?? []) {
            methods++;
            const cls = ours.find((s) => s.name === symbol.name && s.kind === kind);
            if (!has(cls?.children ?? [], "method", method.name, method.location.line + 1)) {
              wrong.push(`${file}:${method.location.line} ${symbol.name}.${method.name}`);
            }
          }
        }
      }
    }
    assertEquals(
      wrong,
      [],
      "every exported declaration deno doc lists is in the outline at its line",
    );
    assert(
      compared >= 150 && methods >= 35,
      `${compared} declarations, ${methods} methods compared`,
    );
    assertEquals([...kinds].sort(), ["class", "enum", "function", "interface", "type"]);
  },
);

Deno.test(
  "ts_js_get_code_outline agrees with Universal Ctags on the npm packages' .js, .mjs and .cjs",
  { ignore: quickRun || !canRun("ctags") },
  async () => {
    await using root = await tempDir();
    const wanted = [
      "/express-rate-limit/dist/index.mjs",
      "/@hono/node-server/dist/index.mjs",
      "/eventsource/dist/index.cjs",
      "/pkce-challenge/dist/index.node.cjs",
      "/@modelcontextprotocol/sdk/dist/esm/client/index.js",
      "/@modelcontextprotocol/sdk/dist/esm/server/mcp.js",
    ];
    const files = wanted.map((tail) => npmFile(tail.slice(1)))
      .filter((path): path is string => path !== undefined);
    assert(files.length >= 5, `JavaScript files found: ${files.length}`);
    for (const [i, file] of files.entries()) {
      await Deno.copyFile(file, `${root.path}/f${i}${file.slice(file.lastIndexOf("."))}`);
    }
    await using host = await testHost({ roots: [root.path] });
    let compared = 0;
    const wrong: string[] = [];
    for (const [i, file] of files.entries()) {
      const output = await new Deno.Command("ctags", {
        args: [
          "--output-format=json",
          "--fields=+neZ",
          "--language-force=JavaScript",
          "-o",
          "-",
          file,
        ],
        stderr: "null",
      }).output();
      const tags = new TextDecoder().decode(output.stdout).split("\n").filter(Boolean)
        .map((line) =>
          JSON.parse(line) as { name: string; kind: string; line: number; scope?: string }
        );
      const result = await host.call("ts_js_get_code_outline", {
        path: `f${i}${file.slice(file.lastIndexOf("."))}`,
      });
      assertFalse(result.isError, textOf(result));
      const ours = (result.structuredContent as { symbols: Outline[] }).symbols;
      const classes = new Set(
        tags.filter((tag) => tag.kind === "class" && !tag.scope).map((t) => t.name),
      );
      for (const tag of tags) {
        const top = !tag.scope && (tag.kind === "class" || tag.kind === "function");
        const method = tag.kind === "method" && tag.scope !== undefined && classes.has(tag.scope);
        if ((!top && !method) || tag.name.startsWith("AnonymousFunction")) continue;
        // ctags gives no scope to what is nested in a function body; outlines (like Python's) leave it out.
        if (
          ours.some((s) =>
            s.kind === "function" && s.start_line < tag.line && tag.line <= s.end_line
          )
        ) {
          continue;
        }
        compared++;
        const list = method
          ? ours.find((s) => (s.kind === "class" || s.kind === "object") && s.name === tag.scope)
            ?.children ?? []
          : ours;
        // `get #x()`: ctags drops the `#` of a private name.
        if (!list.some((s) => s.name.replace(/^#/, "") === tag.name && s.start_line === tag.line)) {
          wrong.push(
            `${file.split("node_modules/").at(-1)}:${tag.line} ${tag.scope ?? ""} ${tag.name}`,
          );
        }
      }
    }
    assert(compared >= 150, `compared ${compared}`);
    // What differs is ctags' reading: `x = function () {}` assignments, `Object.defineProperty` values,
    // data-only object constants, a variable inside a method (9 of 157 when written).
    assert(
      wrong.length <= compared * 0.07,
      `${wrong.length}/${compared} differ: ${wrong.join(", ")}`,
    );
  },
);

Deno.test("ts_js_get_definition finds enums in .d.ts, const arrow functions, namespaces, object methods and JSX components", async () => {
  await using root = await tempDir();
  await Deno.copyFile(
    SDK_TYPES,
    `${root.path}/types.d.ts`,
  );
  await Deno.writeTextFile(
    `${root.path}/app.tsx`,
    [
      "import { useState } from 'react';",
      "",
      "export namespace Format {",
      "  export function money(cents: number): string {",
      "    return `$${(cents / 100).toFixed(2)}`;",
      "  }",
      "}",
      "",
      "export type Props = { cents: number };",
      "",
      "export const Price = ({ cents }: Props) => {",
      "  const [shown] = useState(Format.money(cents));",
      '  return <span className="price">{shown}</span>;',
      "};",
      "",
      "export const api = {",
      "  async load(id: string) {",
      "    return await fetch(`/items/${id}`);",
      "  },",
      "  save: (item: Props) => fetch('/items', { method: 'POST', body: JSON.stringify(item) }),",
      "};",
      "",
      "export function parse(text: string): number;",
      "export function parse(text: string, radix: number): number;",
      "export function parse(text: string, radix = 10): number {",
      "  return Number.parseInt(text, radix);",
      "}",
      "",
    ].join("\n"),
  );
  await using host = await testHost({ roots: [root.path] });
  const get = async (path: string, name: string) => {
    const result = await host.call("ts_js_get_definition", { path, name });
    assertFalse(result.isError, textOf(result));
    return result.structuredContent as { kind: string; start_line: number; source: string };
  };
  const errorCode = await get("types.d.ts", "ErrorCode");
  assertEquals(errorCode.kind, "enum");
  assertMatch(
    errorCode.source,
    /^export declare enum ErrorCode \{\n[^]*ConnectionClosed = -32000,[^]*\n\}\n$/,
  );
  assertEquals((await get("app.tsx", "Format.money")).start_line, 4);
  assertEquals((await get("app.tsx", "Format")).kind, "namespace");
  assertEquals((await get("app.tsx", "Props")).kind, "type");
  const price = await get("app.tsx", "Price");
  assertEquals([price.kind, price.start_line], ["function", 11]);
  assertStringIncludes(price.source, '<span className="price">{shown}</span>');
  assertEquals((await get("app.tsx", "api.load")).start_line, 17);
  assertEquals((await get("app.tsx", "api.save")).kind, "method");
  const parse = await get("app.tsx", "parse");
  assertEquals(parse.start_line, 25, "the implementation, not an overload signature");
  const skeleton = textOf(await host.call("ts_js_get_skeleton", { path: "app.tsx" }));
  assertMatch(
    skeleton,
    /export const Price = \(\{ cents \}: Props\) => \{ \.\.\. \/\* app\.tsx:11-\d+ \*\/ \};/,
  );
  assertMatch(skeleton, /\n {2}async load\(id: string\) \{ \.\.\. \/\* app\.tsx:17-\d+ \*\/ \},/);
  const updated = await host.call("ts_js_update_definition", {
    path: "app.tsx",
    name: "Price",
    content: "export const Price = ({ cents }: Props) => <b>{Format.money(cents)}</b>;\n",
  });
  assertFalse(updated.isError, textOf(updated));
  const text = await Deno.readTextFile(`${root.path}/app.tsx`);
  assertStringIncludes(
    text,
    "export type Props = { cents: number };\n\nexport const Price = ({ cents }: Props) => <b>{Format.money(cents)}</b>;\n\nexport const api = {",
  );
});
