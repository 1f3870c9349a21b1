import { assert, assertEquals } from "../../_assert.ts";
import { quickRun, tempDir, testHost, textOf } from "../../_helpers.ts";
import { copyModules, reference, SAMPLE, stdlibDir } from "./_stdlib.ts";

/** Ways to break a module, each one that compile() rejects. */
const BREAKAGES: Record<string, (lines: string[]) => string[] | undefined> = {
  "colon dropped after def": (lines) =>
    edit(lines, /^\s*def .*\):\s*$/, (l) => l.replace(/:(\s*)$/, "$1")),
  "closing bracket dropped": (lines) =>
    edit(lines, /^\s+\w+\([^()]*\)\s*$/, (l) => l.replace(/\)(\s*)$/, "$1")),
  "unexpected indent": (lines) => edit(lines, /^import \w+\s*$/, (l) => "    " + l),
  "doubled keyword": (lines) =>
    edit(lines, /^\s+return \w/, (l) => l.replace("return ", "return return ")),
  "unterminated string": (lines) => [...lines, 'x = "abc\n'],
  "assignment to a literal": (lines) => [...lines, "1 = x\n"],
  "inconsistent dedent": (lines) =>
    edit(
      lines,
      /^ {8}\w.*\n$/,
      (l) => l.slice(1),
      (i) => /^ {8}\w/.test(lines[i + 1] ?? ""),
    ),
  "stray operator": (lines) => edit(lines, /^\s+\w+ = \w/, (l) => l.replace(" = ", " = * ")),
  "def without name": (lines) =>
    edit(lines, /^\s*def \w+\(/, (l) => l.replace(/def \w+\(/, "def (")),
  "unclosed class bases": (lines) =>
    edit(lines, /^class \w+\(\w+\):\s*$/, (l) => l.replace("):", ":")),
};

function edit(
  lines: string[],
  pattern: RegExp,
  change: (line: string) => string,
  also: (index: number) => boolean = () => true,
): string[] | undefined {
  const at = lines.findIndex((l, i) => i > 0 && pattern.test(l) && also(i));
  if (at < 0) return undefined;
  const out = [...lines];
  out[at] = change(out[at]!);
  return out;
}

Deno.test("py_check_syntax agrees with compile() on deliberately broken copies of stdlib modules", {
  ignore: quickRun,
}, async () => {
  const stdlib = await stdlibDir();
  const modules = SAMPLE.slice(0, 30);
  await using root = await tempDir();
  await copyModules(stdlib, modules, root.path);
  const made: string[] = [];
  for (const module of modules) {
    const lines = (await Deno.readTextFile(`${root.path}/${module}`)).match(/[^\n]*\n|[^\n]+$/g)!;
    for (const [kind, breakIt] of Object.entries(BREAKAGES)) {
      const broken = breakIt(lines);
      if (!broken) continue;
      const name = `broken/${module.replaceAll("/", "_")}.${kind.replaceAll(" ", "_")}.py`;
      await Deno.mkdir(`${root.path}/broken`, { recursive: true });
      await Deno.writeTextFile(`${root.path}/${name}`, broken.join(""));
      made.push(name);
    }
  }
  const refs = await reference(made.map((m) => `${root.path}/${m}`));
  await using host = await testHost({ roots: [root.path] });
  const disagree: string[] = [];
  let invalid = 0;
  for (const [i, name] of made.entries()) {
    const result = await host.call("py_check_syntax", { path: name });
    const data = result.structuredContent as { valid: boolean; errors: unknown[] };
    assertEquals(result.isError, undefined, textOf(result));
    assertEquals(data.valid, data.errors.length === 0);
    if (!refs[i]!.valid) invalid++;
    if (data.valid !== refs[i]!.valid) {
      disagree.push(
        `${name}: compile() ${
          refs[i]!.valid
            ? "accepts"
            : `rejects (${refs[i]!.error?.message} at ${refs[i]!.error?.line})`
        }, py_check_syntax says ${data.valid}`,
      );
    }
  }
  assert(invalid >= 150, `only ${invalid} broken copies`);
  assertEquals(disagree, []);
});
