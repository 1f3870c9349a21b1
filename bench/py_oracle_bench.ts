/**
 * `find_usages` on Python against pyright's references, on the standard
 * library's `email` and `http` packages copied under names the interpreter
 * does not ship (`mailkit`, `httpkit`; their imports rewritten). A seeded
 * sampler picks symbols from pyright's document symbols (a quarter each of
 * methods and class fields, functions, classes, module variables); each is
 * asked of toolhost in the launch users run and of pyright, and sites are
 * compared by file, line and column. Symbols pyright finds no reference of
 * are passed over.
 *
 * Run: `deno run -A bench/py_oracle_bench.ts [--symbols N] [--seed S]`
 * (default 40 symbols, seed 32; pyright is installed from npm once, into
 * `bench/.data/oracles/`).
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { connectStdio } from "../tests/_mcp.ts";
import { treeRss } from "./_measure.ts";
import { type PyPick, Pyright } from "./_py_oracle.ts";
import { scoreFindUsages, scoreLines } from "./_oracle_score.ts";
import { pyCorpus, samplePy } from "./_py_oracle_corpus.ts";

const arg = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
};
const SYMBOLS = arg("--symbols", 40);
const SEED = arg("--seed", 32);
const ROOT = new URL(".data/py_oracle/", import.meta.url).pathname.replace(/\/$/, "");

async function main(): Promise<void> {
  const files = await pyCorpus(ROOT);
  await using pyright = await Pyright.start(ROOT);
  const all: PyPick[] = [];
  for (const path of files) all.push(...await pyright.symbols(path));
  const picks = samplePy(all, SYMBOLS * 2, SEED);
  await using session = await connectStdio([ROOT]);
  const scored = await scoreFindUsages(
    (args) => session.call("find_usages", args),
    picks,
    (pick) => pyright.references(pick),
    SYMBOLS,
  );
  console.log(scoreLines(`email and http: ${files.length} files`, scored, treeRss(session.pid!)));
}

await main();
