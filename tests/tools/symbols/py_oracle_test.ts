/**
 * `find_usages` on Python against pyright's references, through toolhost in
 * the launch users run, on the standard library's `email` and `http`
 * packages copied as `mailkit` and `httpkit`: 40 symbols a seeded sampler
 * picks from pyright's document symbols (methods and class fields,
 * functions, classes, module variables). The sites toolhost marks exact are
 * pyright's (precision ≥ 0.99) and miss few of them (recall ≥ 0.97); with
 * the unsure ones it lists them all. Renames of 10 of them, each on the
 * corpus as shipped: the files written are pyright's rename applied, the
 * dry run's diff is what the real run writes, and every module still
 * compiles and imports; a rename with unsure sites is refused, writing
 * nothing. pyright is installed from npm once
 * (`bench/.data/oracles/`); `bench/py_oracle_bench.ts` prints the same
 * numbers with timings.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText } from "../../_mcp.ts";
import { type PyPick, Pyright } from "../../../bench/_py_oracle.ts";
import { pyCorpus, samplePy } from "../../../bench/_py_oracle_corpus.ts";
import { scoreFindUsages } from "../../../bench/_oracle_score.ts";
import { appliedDiff, assertMeetsTargets } from "./_fixtures.ts";
import { python } from "../python/_stdlib.ts";

const SYMBOLS = 40;
const RENAMES = 10;
const SEED = 32;

Deno.test("Python find_usages and rename_symbol agree with pyright on email and http", async (t) => {
  await using dir = await tempDir();
  const root = `${await Deno.realPath(dir.path)}/corpus`;
  const files = await pyCorpus(root);
  await using pyright = await Pyright.start(root);
  const all: PyPick[] = [];
  for (const path of files) all.push(...await pyright.symbols(path));
  await using session = await connectStdio([root]);
  const picks = samplePy(all, SYMBOLS * 2, SEED);
  await t.step(`find_usages of ${SYMBOLS} symbols: pyright's sites`, async () => {
    const scored = await scoreFindUsages(
      (args) => session.call("find_usages", args),
      picks,
      (pick) => pyright.references(pick),
      SYMBOLS,
    );
    assertMeetsTargets(scored, { used: SYMBOLS, listedRecall: 0.99 });
  });
  await t.step(
    `${RENAMES} renames write pyright's rename and still compile and import`,
    async () => {
      const originals = new Map<string, string>();
      for (const path of files) originals.set(path, await Deno.readTextFile(`${root}/${path}`));
      let done = 0;
      let refused = 0;
      for (const pick of picks) {
        if (done >= RENAMES) break;
        const newName = `${pick.name.split(".").at(-1)}_renamed`;
        const expected = await pyright.rename(pick, newName, originals);
        if (!expected || expected.size === 0) continue;
        const args = { path: pick.path, name: pick.name, new_name: newName };
        const dry = await session.call("rename_symbol", { ...args, dry_run: true });
        if (dry.isError) {
          assert(/^unsure_sites: /.test(resultText(dry)), `${pick.name}: ${resultText(dry)}`);
          refused++;
          continue;
        }
        const real = await session.call("rename_symbol", args);
        assert(!real.isError, `${pick.name}: ${resultText(real)}`);
        const written = new Map<string, string>();
        for (const path of files) {
          const text = await Deno.readTextFile(`${root}/${path}`);
          if (text !== originals.get(path)) written.set(path, text);
        }
        assertEquals(written, expected, `${pick.name}: the files written`);
        assertEquals(
          appliedDiff((dry.structuredContent as { diff: string }).diff, originals),
          written,
          `${pick.name}: the dry run's diff`,
        );
        await compilesAndImports(root);
        for (const path of written.keys()) {
          await Deno.writeTextFile(`${root}/${path}`, originals.get(path)!);
        }
        done++;
      }
      assertEquals(done, RENAMES);
      assert(refused <= RENAMES, `${refused} refused`);
    },
  );
});

/** Every module compiles, and the two packages and their modules import. */
async function compilesAndImports(root: string): Promise<void> {
  const check = `
import compileall, importlib, pkgutil, sys
assert compileall.compile_dir(".", quiet=1)
for package in ("mailkit", "httpkit"):
    importlib.import_module(package)
    for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        importlib.import_module(info.name)
`;
  const run = await new Deno.Command((await python()).executable, {
    args: ["-c", check],
    cwd: root,
    env: { PYTHONDONTWRITEBYTECODE: "1", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdout: "null",
    stderr: "piped",
  }).output();
  assert(run.success, new TextDecoder().decode(run.stderr));
}
