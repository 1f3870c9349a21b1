import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { launchHost } from "../_mcp.ts";
import { boundReply } from "../../tools/reply_bound.ts";
import type { ToolResult } from "../../tools/tool.ts";

const BOUND = 10_000;

/** The oracle: a reply's UTF-8 size serialized, counted here, not by the code under test. */
function bytesOf(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

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

/** A one-block reply of exactly `size` bytes serialized: `unit` repeated, then ASCII padding. */
function replyOf(size: number, unit: string): ToolResult {
  // The bytes the text adds to an empty reply (its serialized form less the two quotes).
  const body = size - bytesOf({ content: [{ type: "text", text: "" }] });
  const text = unit.repeat(Math.floor(body / (bytesOf(unit) - 2)));
  const result: ToolResult = {
    content: [{ type: "text", text: text + "x".repeat(body - (bytesOf(text) - 2)) }],
  };
  assertEquals(bytesOf(result), size, "the fixture's own size");
  return result;
}

Deno.test("boundReply keeps a reply of exactly the bound and cuts one a byte or a few hundred over", async (t) => {
  for (const unit of ["a", "\u00e9", "\u20ac", "\u{1F600}"]) {
    await t.step(`text of ${JSON.stringify(unit)}`, () => {
      const exact = replyOf(BOUND, unit);
      assert(boundReply(exact, BOUND) === exact, "a reply of the bound is left as it is");
      for (const over of [1, 100, 700, 1023]) {
        const bounded = boundReply(replyOf(BOUND + over, unit), BOUND);
        const size = bytesOf(bounded);
        assert(size <= BOUND, `${over} bytes over: the bounded reply is ${size} bytes`);
        assertMatch(textOf(bounded), /\[truncated: the reply was \d+ bytes, over the bound/);
      }
    });
  }
});

Deno.test("boundReply cuts structuredContent, not only the text", async (t) => {
  const matches = Array.from({ length: 5000 }, (_, i) => ({ path: `src/f${i}.ts`, line: i }));
  const result: ToolResult = {
    content: [{ type: "text", text: "x".repeat(300) }],
    structuredContent: { matches, total: matches.length, engine: { name: "ripgrep" } },
  };
  const bounded = boundReply(result, BOUND);
  await t.step("the whole reply fits, serialized", () => assert(bytesOf(bounded) <= BOUND));
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
  assert(bytesOf(bounded) <= BOUND);
  assertMatch(textOf(bounded), /\[FILES UPDATED\] a\.py changed/);
  assertMatch(textOf(bounded), /^line\nline\n/);
});

Deno.test("boundReply measures bytes: escapes and multi-byte characters count", () => {
  for (const unit of ['"\\', "\u00e9", "\u{1F600}", "\n\t"]) {
    const result: ToolResult = { content: [{ type: "text", text: unit.repeat(20_000) }] };
    const bounded = boundReply(result, BOUND);
    assert(bytesOf(bounded) <= BOUND, `${JSON.stringify(unit)}: ${bytesOf(bounded)}`);
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
  assert(bytesOf(bounded) <= BOUND);
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
  assert(bytesOf(dropped) <= BOUND);
  assertEquals(dropped.directives, undefined);
  assertMatch(textOf(dropped), /directives and _meta were left out/);
});

Deno.test("boundReply says too_large for what cannot be cut", () => {
  const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key${i}`, i]));
  const bounded = boundReply({ content: [], structuredContent: many }, BOUND);
  assertEquals(bounded.isError, true);
  assert(bytesOf(bounded) <= BOUND);
  assertMatch(textOf(bounded), /ask for less/);
});

Deno.test("a reply of multi-byte text through the launch users run is within the bound in bytes", async (t) => {
  await using root = await tempDir();
  // Two to four bytes a character: a bound counted in characters lets through twice the bytes.
  const line = "needle Питон → ✓ 😀 данные ".repeat(8);
  for (let d = 0; d < 10; d++) {
    await Deno.mkdir(`${root.path}/d${d}`);
    for (let f = 0; f < 20; f++) {
      await Deno.writeTextFile(`${root.path}/d${d}/f${f}.txt`, `${line}\n`.repeat(10));
    }
  }
  const bound = 16_384;
  await using host = await launchHost({
    roots: [root.path],
    userFile: { limits: { maxOutputChars: bound } },
  });
  for (
    const [tool, args] of [
      ["grep", { pattern: "needle", limit: 2000 }],
      ["read_files", { paths: ["d0/f0.txt", "d1/f1.txt", "d2/f2.txt", "d3/f3.txt"] }],
      ["read_file", { path: "d0/f0.txt" }],
    ] as const
  ) {
    await t.step(tool, async () => {
      const reply = await host.call(tool, args);
      assertFalse(reply.isError, textOf(reply).slice(0, 300));
      const size = bytesOf(reply);
      assert(size <= bound, `${tool}: a reply of ${size} bytes, over the bound of ${bound}`);
    });
  }
  await t.step("what was cut says so, in bytes", async () => {
    const reply = await host.call("grep", { pattern: "needle", limit: 2000 });
    assertMatch(textOf(reply), /\[truncated: the reply was \d+ bytes, over the bound of 16384/);
  });
});
