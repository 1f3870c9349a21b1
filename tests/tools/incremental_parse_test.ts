/**
 * `TreeSitter.parseEdited` (what a rename's parse check uses): the tree of a
 * text made by replacing ranges of a parsed one, parsed from the old tree,
 * is the tree a fresh parse makes — with text before the changes that is
 * not ASCII, several changes in a file, a change that breaks the syntax —
 * and the old tree is left as it was.
 */

import { assert, assertEquals } from "../_assert.ts";
import type { Node } from "web-tree-sitter";
import { DeclaredTreeSitter as TreeSitter } from "../../tools/declared_tree_sitter.ts";

/** Every node's type and span, in order. */
function spans(node: Node): string[] {
  const out = [`${node.type} ${node.startIndex}-${node.endIndex}`];
  for (const child of node.children) if (child) out.push(...spans(child));
  return out;
}

/** Replace ranges of a text, each with a new text; with the changes `parseEdited` takes. */
function replaced(text: string, replacements: Array<[number, number, string]>) {
  let out = "";
  let at = 0;
  const changes = [];
  for (const [start, end, by] of replacements) {
    out += text.slice(at, start) + by;
    changes.push({ start, end, length: by.length });
    at = end;
  }
  return { after: out + text.slice(at), changes };
}

/** Every occurrence of a word in a text, as a replacement by another. */
function everyWord(text: string, word: string, by: string): Array<[number, number, string]> {
  return [...text.matchAll(new RegExp(`\\b${word}\\b`, "g"))].map((m) => [
    m.index,
    m.index + word.length,
    by,
  ]);
}

Deno.test("an edited text's tree, parsed from the old one, is a fresh parse's", async (t) => {
  const ts = new TreeSitter();
  const cases: Array<[string, string, string, string, string]> = [
    [
      "a name renamed throughout",
      "python",
      "def f(x):\n    return f(x) + f\n\ny = f(1)\n",
      "f",
      "renamed",
    ],
    [
      "text that is not ASCII before the changes",
      "python",
      "s = 'é中𝄞'  # ü\ndef g():\n    return g\n",
      "g",
      "longer_name",
    ],
    [
      "a shorter name",
      "typescript",
      "export const value = 1;\nconst b = value + value;\n",
      "value",
      "v",
    ],
    ["a change that breaks the syntax", "python", "def h(a):\n    return h(a)\n", "h", "class"],
  ];
  for (const [what, grammar, source, word, by] of cases) {
    await t.step(what, async () => {
      const old = { tree: await ts.parseText(source, grammar), source };
      const before = old.tree.rootNode.toString();
      const { after, changes } = replaced(source, everyWord(source, word, by));
      const incremental = await ts.parseEdited(old, after, changes, grammar);
      const fresh = await ts.parseText(after, grammar);
      try {
        assertEquals(incremental.rootNode.toString(), fresh.rootNode.toString());
        assertEquals(spans(incremental.rootNode), spans(fresh.rootNode), "and where each node is");
        assertEquals(incremental.rootNode.hasError, fresh.rootNode.hasError);
        assertEquals(old.tree.rootNode.toString(), before, "the old tree is as it was");
        if (by === "class") assert(fresh.rootNode.hasError, "the broken text has an error");
      } finally {
        for (const tree of [incremental, fresh, old.tree]) tree.delete();
      }
    });
  }
});
