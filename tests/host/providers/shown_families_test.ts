import { assert, assertEquals, assertFalse } from "../../_assert.ts";
import { FAMILIES } from "../../../tools/families.ts";
import { ShownFamilies } from "../../../host/providers/shown_families.ts";

Deno.test("shown families: a language's family is listed once a file of it is found; the others always are", () => {
  const shown = new ShownFamilies(FAMILIES, {});
  let changes = 0;
  shown.onChange(() => changes++);
  for (const family of ["files", "analysis", "observe", "todo", undefined]) {
    assert(shown.listed(family), String(family));
  }
  for (const family of ["python", "cfamily", "typescript"]) {
    assertFalse(shown.listed(family), family);
    assert(shown.callable(family), `${family} answers calls while it waits`);
  }
  assert(shown.pending().includes(".py") && shown.pending().includes(".hpp"));
  shown.notice(["src/app.PY", "Makefile", "notes.md"]);
  assert(shown.listed("python"));
  assertFalse(shown.pending().includes(".pyi"), "python no longer waits");
  assertEquals(changes, 1);
  shown.notice(["other.py"]);
  assertEquals(changes, 1, "no change, no notice");
  shown.found([".h"]);
  assert(shown.listed("cfamily"));
  assertFalse(shown.listed("typescript"));
  assertEquals(changes, 2);
});

Deno.test("shown families: config forces families on and off; tools.enabled lists every family", () => {
  const forced = new ShownFamilies(FAMILIES, {
    // symbols is off too: its tools wait for .py, .c and .ts files alike.
    families: { cfamily: true, python: false, todo: false, symbols: false },
  });
  assert(forced.listed("cfamily"));
  assertFalse(forced.listed("python"));
  assertFalse(forced.callable("python"), "a family switched off answers no call");
  assertFalse(forced.listed("todo"));
  assertFalse(forced.pending().some((extension) => [".py", ".c"].includes(extension)));
  assert(forced.pending().includes(".ts"));
  const enabled = new ShownFamilies(FAMILIES, { enabled: ["ts_c_get_definition"] });
  assert(enabled.listed("cfamily") && enabled.listed("typescript"));
  assertEquals(enabled.pending(), []);
});
