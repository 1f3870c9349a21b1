/**
 * The C/C++ resolver behind `find_usages` and `rename_symbol`, called with a
 * tool context over real temp directories: a small C project (a header, two
 * .c files that include it, a third with a `static` function and a struct
 * of the same names, a macro) and a small C++ one (namespaces, a class, an
 * override), whose expected sites are marked in the source (`⟦name⟧` exact,
 * `⟪name⟫` unsure; every other occurrence must not be listed). Renames are
 * checked with the compiler (`cc -fsyntax-only`, `c++ -fsyntax-only`).
 */

import { assert, assertEquals, assertMatch, assertRejects } from "../../_assert.ts";
import { canRun, tempDir, toolContext } from "../../_helpers.ts";
import { CFAMILY_RESOLVER } from "../../../tools/cfamily/_resolve.ts";
import type { SymbolSites } from "../../../tools/symbols/_resolver.ts";
import { Skipped } from "../../../tools/_skipped.ts";
import { applyRename, asMarks, unmark, writeTree } from "./_fixtures.ts";
import type { ToolContext } from "../../../tools/tool.ts";

async function find(ctx: ToolContext, path: string, name: string): Promise<SymbolSites> {
  return await CFAMILY_RESOLVER.findSites(ctx, { path, name }, ".", new Skipped());
}

/** Compile each source file with `-fsyntax-only`; the compiler's complaints, if any. */
async function compile(root: string, compiler: string, sources: string[]): Promise<string> {
  let errors = "";
  for (const source of sources) {
    const output = await new Deno.Command(compiler, {
      args: ["-fsyntax-only", "-Wall", "-Werror", "-Iinclude", source],
      cwd: root,
      stderr: "piped",
    }).output();
    if (!output.success) errors += new TextDecoder().decode(output.stderr);
  }
  return errors;
}

// ---- C: a header, the files that include it, and same-named other symbols ----

const C_PROJECT = unmark({
  "include/geo.h": `#ifndef GEO_H
#define GEO_H
#define ⟦SCALE⟧ 2
#define DOUBLE(v) ((v) * ⟪SCALE⟫)
struct point { int ⟦x⟧; int y; };
typedef struct { int count; } counter_t;
int ⟦area⟧(struct point *p, counter_t c);
extern int total;
#endif
`,
  "include/shape.h":
    `/* Uses struct point without including geo.h: its includers include that first. */
static inline int shape_x(const struct point *p) { return p->⟦x⟧; }
`,
  "src/geo.c": `#include "geo.h"
int total = 0;
/* area() computes the area of p; "area" in a string */
int ⟦area⟧(struct point *p, counter_t c) {
  int areas = p->⟦x⟧ * p->y * c.count;
  total += areas;
  return DOUBLE(areas) + ⟦SCALE⟧;
}
`,
  "src/main.c": `#include <stdio.h>
#include "../include/geo.h"
#include "shape.h"
static int helper(int x) { return x * 2; }
int main(void) {
  struct point pt = { .⟦x⟧ = 1, .y = 2 };
  counter_t c = { .count = 3 };
  printf("area=%d\\n", ⟦area⟧(&pt, c));
#ifdef ⟦SCALE⟧
  pt.⟦x⟧ = helper(pt.⟦x⟧);
#endif
  return total + shape_x(&pt);
}
`,
  "src/other.c": `struct point { int x; };
static int area(int x) { return x + 1; }
int use(void);
int use(void) {
  struct point q = { .x = 2 };
  int SCALE = 3;
  return area(q.x) + SCALE;
}
`,
});

const C_SOURCES = ["src/geo.c", "src/main.c", "src/other.c"];

Deno.test("the C resolver follows a header's function, struct member and macro into the files that include it", async (t) => {
  await using root = await tempDir();
  await writeTree(root.path, C_PROJECT.files);
  const ctx = await toolContext(root.path);
  await t.step(
    "a function: its prototype, definition and calls, not a static one elsewhere",
    async () => {
      const found = await find(ctx, "include/geo.h", "area");
      assertEquals(asMarks(found.sites), C_PROJECT.marks("area"));
      assertEquals(found.definition, "include/geo.h:7-7");
      const fromDefinition = await find(ctx, "src/geo.c", "area");
      assertEquals(asMarks(fromDefinition.sites), C_PROJECT.marks("area"));
    },
  );
  await t.step("the static function of the same name is its file's own", async () => {
    const found = await find(ctx, "src/other.c", "area");
    assertEquals(found.sites.map((s) => `${s.path}:${s.line} ${s.role}`), [
      "src/other.c:2 definition",
      "src/other.c:7 call",
    ]);
  });
  await t.step(
    "a struct member through pointers, values and designators, not another struct's",
    async () => {
      const found = await find(ctx, "include/geo.h", "point.x");
      assertEquals(asMarks(found.sites), C_PROJECT.marks("x"));
    },
  );
  await t.step("a macro: uses and #ifdef exact, its use inside another macro unsure", async () => {
    const found = await find(ctx, "include/geo.h", "SCALE");
    assertEquals(asMarks(found.sites), C_PROJECT.marks("SCALE"));
    assertEquals(
      found.sites.find((s) => s.certainty === "unsure")?.reason,
      "inside a macro's definition",
    );
  });
  await t.step("a name that is not there", async () => {
    const error = await assertRejects(() => find(ctx, "include/geo.h", "perimeter"));
    assertMatch(String(error), /Cannot find "perimeter" in "include\/geo\.h"/);
  });
});

Deno.test({
  name:
    "renaming the C project's function, member and macro still compiles, strings and comments unchanged",
  ignore: !canRun("cc"),
  async fn() {
    await using root = await tempDir();
    await writeTree(root.path, C_PROJECT.files);
    assertEquals(await compile(root.path, "cc", C_SOURCES), "");
    const ctx = await toolContext(root.path);
    for (
      const [path, name, to] of [
        ["include/geo.h", "area", "surface"],
        ["include/geo.h", "point.x", "left"],
        ["include/geo.h", "SCALE", "FACTOR"],
      ] as const
    ) {
      await writeTree(root.path, C_PROJECT.files);
      const found = await find(ctx, path, name);
      const from = name.split(".").at(-1)!;
      // The one unsure site (SCALE inside DOUBLE's definition) is what a model renames by hand.
      const unsure = found.sites.filter((s) => s.certainty === "unsure");
      assertEquals(
        unsure.map((s) => `${s.path}:${s.line}`),
        name === "SCALE" ? ["include/geo.h:4"] : [],
      );
      const sites = found.sites.map((s) => ({ ...s, certainty: "exact" as const }));
      const after = applyRename(C_PROJECT.files, sites, { from, to });
      assert(!("src/other.c" in after), `${name}: the unrelated file changed`);
      await writeTree(root.path, after);
      assertEquals(await compile(root.path, "cc", C_SOURCES), "", `${name} → ${to}`);
    }
    await writeTree(root.path, C_PROJECT.files);
    const found = await find(ctx, "include/geo.h", "area");
    const after = applyRename(C_PROJECT.files, found.sites, { from: "area", to: "surface" });
    assertMatch(
      after["src/geo.c"]!,
      /\/\* area\(\) computes the area of p; "area" in a string \*\//,
    );
    assertMatch(after["src/geo.c"]!, /int areas = /);
  },
});

// ---- C++: namespaces, a class, an override, using directives ----

const CPP_PROJECT = unmark({
  "widget.hpp": `#pragma once
namespace ns {
class Base {
 public:
  virtual ~Base() = default;
  virtual void ⟪draw⟫() const {}
};
class ⟦Widget⟧ : public Base {
 public:
  void ⟦draw⟧() const override;
  static int count;
  int size_ = 0;
  ⟦Widget⟧();
  ~⟦Widget⟧();
};
void ⟦helper⟧();
}  // namespace ns
`,
  "widget.cpp": `#include "widget.hpp"
namespace ns {
int ⟦Widget⟧::count = 0;
⟦Widget⟧::⟦Widget⟧() : size_(1) { count++; }
⟦Widget⟧::~⟦Widget⟧() {}
void ⟦helper⟧() {}
}  // namespace ns
void ns::⟦Widget⟧::⟦draw⟧() const {
  ⟦helper⟧();
  ns::⟦helper⟧();
}
`,
  "main.cpp": `#include "widget.hpp"
using namespace ns;
struct Other {
  void draw() const {}
  void helper() const {}
};
int main() {
  ns::⟦Widget⟧ w;
  w.⟦draw⟧();
  ⟦Widget⟧* p = new ⟦Widget⟧();
  p->⟦draw⟧();
  Base* b = p;
  b->⟪draw⟫();
  Other o;
  o.draw();
  o.helper();
  ⟦helper⟧();
  delete p;
  return ⟦Widget⟧::count - 1;
}
`,
});

Deno.test("the C++ resolver follows namespaces, classes, constructors and overrides", async (t) => {
  await using root = await tempDir();
  await writeTree(root.path, CPP_PROJECT.files);
  const ctx = await toolContext(root.path);
  await t.step(
    "a method: declaration, out-of-line definition, typed calls; the base's unsure",
    async () => {
      const found = await find(ctx, "widget.hpp", "ns::Widget::draw");
      assertEquals(asMarks(found.sites), CPP_PROJECT.marks("draw"));
      const reasons = found.sites.filter((s) => s.certainty === "unsure").map((s) => s.reason);
      assertEquals(reasons.sort(), [
        "ns::Widget::draw overrides it",
        "the receiver is a ns::Base, which may be a ns::Widget",
      ]);
    },
  );
  await t.step("a class: its name in types, constructors, destructors and qualifiers", async () => {
    const found = await find(ctx, "widget.hpp", "ns::Widget");
    assertEquals(asMarks(found.sites), CPP_PROJECT.marks("Widget"));
  });
  await t.step(
    "a namespace function, qualified, unqualified and through using namespace",
    async () => {
      const found = await find(ctx, "widget.cpp", "ns::helper");
      assertEquals(asMarks(found.sites), CPP_PROJECT.marks("helper"));
    },
  );
});

Deno.test({
  name: "renaming the C++ project's method, class and function still compiles",
  ignore: !canRun("c++"),
  async fn() {
    await using root = await tempDir();
    const sources = ["widget.cpp", "main.cpp"];
    const ctx = await toolContext(root.path);
    const renames = [["ns::Widget::draw", "paint"], ["ns::Widget", "Gadget"], [
      "ns::helper",
      "assist",
    ]];
    for (const [name, to] of renames as Array<[string, string]>) {
      await writeTree(root.path, CPP_PROJECT.files);
      if (name === "ns::Widget::draw") assertEquals(await compile(root.path, "c++", sources), "");
      const found = await find(ctx, "widget.hpp", name);
      const from = name.split("::").at(-1)!;
      const unsure = found.sites.filter((s) => s.certainty === "unsure");
      // The base's virtual draw() is unsure: renamed by hand with it, the override still compiles.
      const sites = name === "ns::Widget::draw"
        ? found.sites.map((s) => ({ ...s, certainty: "exact" as const }))
        : found.sites;
      assert(name !== "ns::Widget::draw" || unsure.length === 2);
      await writeTree(root.path, applyRename(CPP_PROJECT.files, sites, { from, to }));
      assertEquals(await compile(root.path, "c++", sources), "", `${name} → ${to}`);
    }
  },
});
