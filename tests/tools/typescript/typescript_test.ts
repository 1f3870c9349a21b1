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
import { tempDir, testHost, textOf } from "../../_helpers.ts";

const REPO = new URL("../../../", import.meta.url).pathname;
const SDK_CLIENT = `${REPO}node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js`;

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
  await Deno.copyFile(`${REPO}host/worker_pool.ts`, `${root.path}/worker_pool.ts`);
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
    assertStringIncludes(skeleton, "has(name: string): boolean { ... }");
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
            new_content: (got.structuredContent as { source: string }).source,
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
      new_content: "  has(name: string): boolean {\n    return this.#tools.has(name\n",
    });
    assertMatch(textOf(broken), /^syntax_error: /);
  });
});
