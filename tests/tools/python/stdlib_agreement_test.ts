import { assert, assertEquals } from "../../_assert.ts";
import { quickRun, tempDir, testHost, textOf } from "../../_helpers.ts";
import {
  asyncioModules,
  copyModules,
  qualifiedNames,
  reference,
  SAMPLE,
  stdlibDir,
  withPath,
} from "./_stdlib.ts";

Deno.test(
  "py tools agree with Python's ast on standard-library modules",
  { ignore: quickRun },
  async (t) => {
    const stdlib = await stdlibDir();
    const modules = [...SAMPLE, ...(await asyncioModules(stdlib))];
    assert(modules.length >= 60, `only ${modules.length} modules`);
    await using root = await tempDir();
    await copyModules(stdlib, modules, root.path);
    const refs = await reference(modules.map((m) => `${root.path}/${m}`));
    await using host = await testHost({ roots: [root.path] });

    await t.step("outline names and line ranges (decorator start to end_lineno)", async () => {
      for (const [i, module] of modules.entries()) {
        const ref = refs[i]!;
        assert(ref.valid, `${module} should compile`);
        const result = await host.call("py_get_code_outline", { path: module });
        assertEquals(result.isError, undefined, textOf(result));
        assertEquals(result.structuredContent?.symbols, withPath(ref.symbols!, module), module);
      }
    });

    await t.step("the outline text names each entry's path:start-end", async () => {
      const result = await host.call("py_get_code_outline", { path: "argparse.py" });
      const text = textOf(result);
      assert(/^\[Class\] _AttributeHolder \(argparse\.py:\d+-\d+\)$/m.test(text));
      assert(/^ {2}\[Method\] __repr__ \(argparse\.py:\d+-\d+\)$/m.test(text));
      assert(
        /^ {4}\[Method\] format_help \(argparse\.py:\d+-\d+\)$/m.test(text),
        "nested class members",
      );
    });

    await t.step("definitions' exact text", async () => {
      let checked = 0;
      for (const [i, module] of modules.entries()) {
        const ref = refs[i]!;
        const counts = qualifiedNames(ref.symbols!);
        const unique = Object.keys(ref.texts!).filter((q) => counts.get(q) === 1);
        // Every unique name in small files; a spread of them in large ones.
        const step = Math.max(1, Math.floor(unique.length / 25));
        for (let k = 0; k < unique.length; k += step) {
          const name = unique[k]!;
          const result = await host.call("py_get_definition", { path: module, name });
          const source = result.structuredContent?.source as string;
          assertEquals(source, ref.texts![name], `${module} ${name}`);
          const { start_line, end_line } = result.structuredContent as Record<string, number>;
          assertEquals(textOf(result), `${module}:${start_line}-${end_line} ${name}\n${source}`);
          checked++;
        }
      }
      assert(checked > 800, `only ${checked} definitions checked`);
    });

    await t.step("names defined twice are ambiguous and list their candidates", async () => {
      let seen = 0;
      for (const [i, module] of modules.entries()) {
        const counts = qualifiedNames(refs[i]!.symbols!);
        const twice = [...counts].find(([, n]) => n > 1);
        if (!twice) continue;
        const result = await host.call("py_get_definition", { path: module, name: twice[0] });
        assertEquals(result.isError, true);
        assert(textOf(result).startsWith("ambiguous_match: "), textOf(result));
        assert(textOf(result).includes(`${twice[0]}@`), textOf(result));
        seen++;
      }
      assert(seen >= 5, `only ${seen} files with duplicate names`);
    });

    await t.step("syntax verdicts on valid files", async () => {
      for (const module of modules) {
        const result = await host.call("py_check_syntax", { path: module });
        assertEquals(result.structuredContent, { valid: true, errors: [] }, module);
      }
    });
  },
);

Deno.test("py_check_syntax agrees with compile() on every top-level standard-library module", {
  ignore: quickRun,
}, async () => {
  const stdlib = await stdlibDir();
  const modules: string[] = [];
  for await (const entry of Deno.readDir(stdlib)) {
    if (entry.isFile && entry.name.endsWith(".py")) modules.push(entry.name);
  }
  modules.sort();
  assert(modules.length >= 150, `only ${modules.length} modules`);
  await using root = await tempDir();
  await copyModules(stdlib, modules, root.path);
  const refs = await reference(modules.map((m) => `${root.path}/${m}`));
  await using host = await testHost({ roots: [root.path] });
  const disagree: string[] = [];
  for (const [i, module] of modules.entries()) {
    const result = await host.call("py_check_syntax", { path: module });
    if (result.structuredContent?.valid !== refs[i]!.valid) {
      disagree.push(`${module}: ${textOf(result)}`);
    }
  }
  assertEquals(disagree, []);
});
