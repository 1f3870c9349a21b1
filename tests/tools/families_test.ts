import { assert, assertEquals } from "../_assert.ts";
import { FAMILIES } from "../../tools/families.ts";
import { TOOL_FAMILIES, TOOLS } from "../../tools/mod.ts";
import { HOST_TOOL_FAMILIES, HOST_TOOLS } from "../../tools/host_tools.ts";
import { TOOL_ASSETS } from "../../tools/assets.ts";
import { RUNTIME_WASM } from "../../tools/family.ts";
import { TYPESCRIPT_LIB, TYPESCRIPT_MANIFEST } from "../../tools/typescript/family.ts";
import { grammarForPath } from "../../tools/grammars.ts";
import { compileArgs } from "../../host/cli/compile.ts";
import { LOADED_LATER } from "../../host/cli/commands.ts";

/** The `.ts` files under a directory. */
async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

Deno.test("tool families: every tool belongs to one family, and what they declare reaches the host", async (t) => {
  await t.step("each local and host-side tool has its family; names are unique", () => {
    const names = [...TOOLS, ...HOST_TOOLS].map((tool) => tool.name);
    assertEquals(new Set(names).size, names.length);
    for (const tool of TOOLS) assert(TOOL_FAMILIES[tool.name], `${tool.name} has a family`);
    for (const tool of HOST_TOOLS) assert(HOST_TOOL_FAMILIES[tool.name], `${tool.name} has one`);
    const families = new Set(FAMILIES.map((family) => family.name));
    assertEquals(families.size, FAMILIES.length);
    for (const name of [...Object.values(TOOL_FAMILIES), ...Object.values(HOST_TOOL_FAMILIES)]) {
      assert(families.has(name), `"${name}" is declared in tools/families.ts`);
    }
  });

  await t.step(
    "each declared grammar is a tool asset, exists, and parses its extensions",
    async () => {
      const grammars = FAMILIES.flatMap((family) => family.grammars ?? []);
      assert(grammars.length >= 5, "python, c, cpp, typescript and tsx are declared");
      assertEquals(
        TOOL_ASSETS.map(String).sort(),
        // A grammar two families parse with (the symbol tools share the languages' ones) is one
        // asset; the TypeScript compiler's folder and manifest are the TS/JS symbol tools'.
        [
          ...new Set(
            [RUNTIME_WASM, ...grammars.map((g) => g.wasm), TYPESCRIPT_LIB, TYPESCRIPT_MANIFEST]
              .map(String),
          ),
        ].sort(),
      );
      for (const file of ["typescript.js", "lib.es5.d.ts", "lib.esnext.full.d.ts"]) {
        assert((await Deno.stat(new URL(file, TYPESCRIPT_LIB))).isFile, `${file} is installed`);
      }
      for (const grammar of grammars) {
        assert((await Deno.stat(grammar.wasm)).isFile, `${grammar.wasm} is installed`);
        for (const extension of grammar.extensions) {
          assertEquals(grammarForPath(`dir/file${extension.toUpperCase()}`), grammar.name);
        }
      }
    },
  );

  await t.step("deno task compile includes the worker entry and every asset", () => {
    const args = compileArgs("out");
    const includes = args.flatMap((arg, i) => (args[i - 1] === "--include" ? [arg] : []));
    assert(includes.includes("host/workers/tool_worker.ts"), "the worker entry");
    for (const asset of TOOL_ASSETS) {
      assert(includes.some((each) => asset.pathname.endsWith(`/${each}`)), `${asset} is included`);
    }
    assertEquals(args.slice(-3), ["-o", "out", "mod.ts"]);
  });

  await t.step(
    "deno task compile includes every module loaded by a computed specifier",
    async () => {
      const args = compileArgs("out");
      const includes = args.flatMap((arg, i) => (args[i - 1] === "--include" ? [arg] : []));
      for (const path of LOADED_LATER) {
        const url = new URL(path, new URL("../../host/cli/", import.meta.url));
        assert(includes.some((each) => url.pathname.endsWith(`/${each}`)), `${path} is included`);
      }
      // commands.ts is the one place that loads code by a computed specifier: compile sees no other.
      const computed: string[] = [];
      for (const dir of ["host", "security", "tools", "sinks"]) {
        for await (const file of sourceFiles(new URL(`../../${dir}/`, import.meta.url))) {
          if (/import\(\s*new URL\(/.test(await Deno.readTextFile(file))) {
            computed.push(
              file.pathname,
            );
          }
        }
      }
      assertEquals(computed.map((path) => path.split("/").slice(-3).join("/")), [
        "host/cli/commands.ts",
      ]);
    },
  );

  await t.step(
    "only the observation tools are never mirrored; code tools prefer the code worker",
    () => {
      const unmirrored = FAMILIES.filter((family) => family.mirrored === false).map((f) => f.name);
      assertEquals(unmirrored, ["observe"]);
      const code = FAMILIES.filter((family) => family.prefersCodeWorker).map((f) => f.name).sort();
      assertEquals(code, ["analysis", "cfamily", "python", "symbols", "typescript"]);
    },
  );
});
