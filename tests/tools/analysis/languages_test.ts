/**
 * The analysis tools read the languages they are handed, and only those: a
 * language a family declares (its grammar, and its reader) is traced by
 * `derive_code_path` and summarized by `get_file_summary` with nothing in
 * the analysis family told of it; the parser layer parses with the grammars
 * it is handed.
 */

import type { Node } from "web-tree-sitter";
import { assert, assertEquals, assertMatch, assertRejects } from "../../_assert.ts";
import { tempDir, textOf, toolContext } from "../../_helpers.ts";
import type { GrammarAsset, LanguageReader } from "../../../tools/family.ts";
import { TreeSitter } from "../../../tools/_treesitter.ts";
import { analysisTools } from "../../../tools/analysis/mod.ts";
import { Registry } from "../../../tools/registry.ts";
import type { CallEdge } from "../../../tools/analysis/derive_code_path.ts";

/** A language no family of the host declares: Starlark, parsed with the Python grammar's `.wasm`. */
const STARLARK: GrammarAsset = {
  name: "starlark",
  extensions: [".star"],
  wasm: new URL(
    "../../../node_modules/tree-sitter-python/tree-sitter-python.wasm",
    import.meta.url,
  ),
};

/** The reader a Starlark family would declare, parsing with a tree-sitter handed only its grammar. */
function starlark(parser: TreeSitter): LanguageReader {
  return {
    grammars: [STARLARK],
    calls: {
      definitions: new Set(["function_definition"]),
      scopes: new Set(),
      calls: new Set(["call"]),
      definitionName: (node: Node) => node.childForFieldName("name")?.text,
      callee: (call: Node) => {
        const called = call.childForFieldName("function");
        return called?.type === "identifier" ? called.text : undefined;
      },
    },
    kind: () => "starlark",
    parse: (_ctx, text, grammar) => parser.parseText(text, grammar),
    summarize: async (_ctx, { text }, grammar) => {
      const tree = await parser.parseText(text, grammar);
      try {
        const names = tree.rootNode.namedChildren.flatMap((node) =>
          node?.type === "function_definition" ? [node.childForFieldName("name")!.text] : []
        );
        return { functions: names };
      } finally {
        tree.delete();
      }
    },
  };
}

const BUILD = [
  "def main():", // line 1
  "    helper()", // line 2
  "    native_rule()", // line 3
  "def helper():", // line 4
  "    leaf()", // line 5
  "def leaf():", // line 6
  "    pass", // line 7
  "",
].join("\n");

Deno.test("the analysis tools read a language a family declares, and no other", async (t) => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/BUILD.star`, BUILD);
  // The same code under an extension no language handed to the tools parses.
  await Deno.writeTextFile(`${root.path}/copy.py`, BUILD.replaceAll("main", "other_main"));
  const ctx = await toolContext(root.path);
  const parser = new TreeSitter({ grammars: [STARLARK] });

  await t.step("derive_code_path traces the declared language's calls", async () => {
    const registry = new Registry(analysisTools([starlark(parser)]));
    const result = await registry.call("derive_code_path", { name: "main" }, ctx);
    assert(!result.isError, textOf(result));
    const { edges, files_scanned } = result.structuredContent as {
      edges: CallEdge[];
      files_scanned: number;
    };
    assertEquals(files_scanned, 1);
    assertEquals(
      edges.map((edge) => [edge.from, edge.to, edge.call_site, edge.depth]),
      [["main", "helper", "BUILD.star:2", 1], ["helper", "leaf", "BUILD.star:5", 2]],
    );
    const missing = await registry.call("derive_code_path", { name: "other_main" }, ctx);
    assertMatch(textOf(missing), /^not_found: /);
  });

  await t.step("get_file_summary summarizes it by its reader", async () => {
    const registry = new Registry(analysisTools([starlark(parser)]));
    const result = await registry.call("get_file_summary", { path: "BUILD.star" }, ctx);
    const summary = result.structuredContent as {
      kind: string;
      sections: Record<string, string[]>;
    };
    assertEquals(summary.kind, "starlark");
    assertEquals(summary.sections.functions, ["main", "helper", "leaf"]);
  });

  await t.step("without its reader, the tools do not see it", async () => {
    const registry = new Registry(analysisTools([]));
    const result = await registry.call("derive_code_path", { name: "main" }, ctx);
    assertMatch(textOf(result), /^not_found: /);
    const summary = await registry.call("get_file_summary", { path: "BUILD.star" }, ctx);
    assertEquals((summary.structuredContent as { kind: string }).kind, "text");
  });

  await t.step("the parser parses with the grammars it is handed, and no other", async () => {
    assertEquals(parser.grammarFor("dir/BUILD.STAR"), "starlark");
    assertEquals(parser.grammarFor("copy.py"), undefined);
    await assertRejects(() => parser.parseText("x = 1\n", "python"), TypeError, "python");
    parser.clear();
  });
});
