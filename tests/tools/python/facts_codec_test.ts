/**
 * The facts kept on disk read back as the facts the parser made: every
 * scope, binding, use, attribute, call, import and string, maps and all, on
 * 40 modules of the standard library (`_stdlib.ts`'s sample), through JSON
 * text as the store writes it.
 */

import { assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { PY_FACTS_CODEC } from "../../../tools/python/_facts_codec.ts";
import type { PyFacts } from "../../../tools/python/_resolve_facts.ts";
import { PyIndex } from "../../../tools/python/_resolve_index.ts";
import { SAMPLE, stdlibDir } from "./_stdlib.ts";

Deno.test("Python facts written as JSON read back equal, on 40 standard library modules", async () => {
  await using dir = await tempDir();
  const ctx = await toolContext(dir.path);
  const index = new PyIndex();
  await index.ready(ctx);
  const stdlib = await stdlibDir();
  for (const module of SAMPLE) {
    const text = await Deno.readTextFile(`${stdlib}/${module}`);
    const facts = index.add(`/p/${module}`, 1, text.length, text);
    const { instanceAttrs: _, ...made } = facts;
    const json = JSON.stringify(PY_FACTS_CODEC.toJson(facts));
    const back = PY_FACTS_CODEC.fromJson(JSON.parse(json)) as PyFacts;
    assertEquals(back, made, module);
  }
});
