import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { boundReply, jsonBytes } from "../../tools/reply_bound.ts";
import type { ToolResult } from "../../tools/tool.ts";

const BOUND = 10_000;

function textOf(result: ToolResult): string {
  return result.content.map((block) => block.type === "text" ? block.text : "").join("\n");
}

Deno.test("boundReply leaves a reply within the bound as it is", () => {
  const result: ToolResult = {
    content: [{ type: "text", text: "short" }],
    structuredContent: { a: 1 },
  };
  assert(boundReply(result, BOUND) === result);
});

Deno.test("boundReply cuts structuredContent, not only the text", async (t) => {
  const matches = Array.from({ length: 5000 }, (_, i) => ({ path: `src/f${i}.ts`, line: i }));
  const result: ToolResult = {
    content: [{ type: "text", text: "x".repeat(300) }],
    structuredContent: { matches, total: matches.length, engine: { name: "ripgrep" } },
  };
  const bounded = boundReply(result, BOUND);
  await t.step("the whole reply fits, serialized", () => assert(jsonBytes(bounded) <= BOUND));
  await t.step("the array is shorter, its elements whole, other keys kept", () => {
    const kept = bounded.structuredContent!.matches as typeof matches;
    assert(kept.length > 10 && kept.length < matches.length);
    assertEquals(kept[3], matches[3]);
    assertEquals(bounded.structuredContent!.total, 5000);
    assertEquals(bounded.structuredContent!.engine, { name: "ripgrep" });
  });
  await t.step("a note says what was cut and how to ask for less", () => {
    assertMatch(textOf(bounded), /\[truncated: the reply was \d+ bytes, over the bound of 10000/);
    assertMatch(textOf(bounded), /structuredContent was shortened; ask for less/);
  });
});

Deno.test("boundReply cuts a long text and keeps a short notice after it", () => {
  const result: ToolResult = {
    content: [
      { type: "text", text: "line\n".repeat(50_000) },
      { type: "text", text: "[FILES UPDATED] a.py changed" },
    ],
  };
  const bounded = boundReply(result, BOUND);
  assert(jsonBytes(bounded) <= BOUND);
  assertMatch(textOf(bounded), /\[FILES UPDATED\] a\.py changed/);
  assertMatch(textOf(bounded), /^line\nline\n/);
});

Deno.test("boundReply measures bytes: escapes and multi-byte characters count", () => {
  for (const unit of ['"\\', "\u00e9", "\u{1F600}", "\n\t"]) {
    const result: ToolResult = { content: [{ type: "text", text: unit.repeat(20_000) }] };
    const bounded = boundReply(result, BOUND);
    assert(jsonBytes(bounded) <= BOUND, `${JSON.stringify(unit)}: ${jsonBytes(bounded)}`);
    // A cut never leaves half a surrogate pair.
    assert(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(textOf(bounded)));
  }
});

Deno.test("boundReply goes into a lone element and a long string, at any depth", () => {
  let deep: unknown = { blob: "y".repeat(100_000) };
  for (let i = 0; i < 200; i++) deep = [deep];
  const result: ToolResult = {
    content: [{ type: "text", text: "ok" }],
    structuredContent: { deep },
  };
  const bounded = boundReply(result, BOUND);
  assert(jsonBytes(bounded) <= BOUND);
  let node = bounded.structuredContent!.deep;
  for (let i = 0; i < 200; i++) node = (node as unknown[])[0];
  assertMatch((node as { blob: string }).blob, /^y+…$/);
});

Deno.test("boundReply drops directives and _meta only when told to", () => {
  const result: ToolResult = {
    content: [{ type: "text", text: "ok" }],
    directives: [{ kind: "ContextAnchor", key: "k", content: "z".repeat(50_000) }],
  };
  const kept = boundReply(result, BOUND);
  assertEquals(kept.isError, true);
  assertMatch(textOf(kept), /^too_large: The reply is \d+ bytes and cannot be cut/);
  const dropped = boundReply(result, BOUND, { dropMeta: true });
  assert(jsonBytes(dropped) <= BOUND);
  assertEquals(dropped.directives, undefined);
  assertMatch(textOf(dropped), /directives and _meta were left out/);
});

Deno.test("boundReply says too_large for what cannot be cut", () => {
  const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key${i}`, i]));
  const bounded = boundReply({ content: [], structuredContent: many }, BOUND);
  assertEquals(bounded.isError, true);
  assert(jsonBytes(bounded) <= BOUND);
  assertMatch(textOf(bounded), /ask for less/);
});
