/**
 * `find_usages` on Python against pyright's references, through toolhost in
 * the launch users run, on the standard library's `email` and `http`
 * packages copied as `mailkit` and `httpkit`: 40 symbols a seeded sampler
 * picks from pyright's document symbols (methods and class fields,
 * functions, classes, module variables). The sites toolhost marks exact are
 * pyright's (precision ≥ 0.99) and miss few of them (recall ≥ 0.97); with
 * the unsure ones it lists them all. pyright is installed from npm once
 * (`bench/.data/oracles/`); `bench/py_oracle_bench.ts` prints the same
 * numbers with timings.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText } from "../../_mcp.ts";
import { type PyPick, Pyright } from "../../../bench/_py_oracle.ts";
import { pyCorpus, samplePy } from "../../../bench/_py_oracle_corpus.ts";
import { count, emptyTally, scores, siteKey } from "../../../bench/_ts_oracle.ts";

const SYMBOLS = 40;
const SEED = 32;

Deno.test("Python find_usages agrees with pyright on email and http", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const files = await pyCorpus(`${root}/corpus`);
  await using pyright = await Pyright.start(`${root}/corpus`);
  const all: PyPick[] = [];
  for (const path of files) all.push(...await pyright.symbols(path));
  await using session = await connectStdio([`${root}/corpus`]);
  const tally = emptyTally();
  let used = 0;
  for (const pick of samplePy(all, SYMBOLS * 2, SEED)) {
    if (used >= SYMBOLS) break;
    const oracle = await pyright.references(pick);
    if (oracle.size === 0) continue;
    used++;
    const result = await session.call("find_usages", {
      path: pick.path,
      name: pick.name,
      limit: 2000,
    });
    assert(!result.isError, `${pick.path} ${pick.name}: ${resultText(result)}`);
    const sites = (result.structuredContent as {
      sites: Array<{ path: string; line: number; column: number; certainty: string }>;
    }).sites;
    count(
      tally,
      oracle,
      sites.map((site) => ({
        key: siteKey(site.path, site.line, site.column),
        exact: site.certainty === "exact",
      })),
    );
  }
  assertEquals(used, SYMBOLS);
  const score = scores(tally);
  const shown = JSON.stringify({ ...tally, ...score });
  assert(score.exactPrecision >= 0.99, shown);
  assert(score.exactRecall >= 0.97, shown);
  assert(score.listedRecall >= 0.99, shown);
});
