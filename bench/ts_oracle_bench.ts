/**
 * `find_usages` on TypeScript and JavaScript against the reference: the
 * TypeScript package's own language service (`findReferences`), on code
 * packages ship — zod 3.25's `src/v4` (TypeScript) and express 4's `lib/`
 * (CommonJS JavaScript). A seeded sampler picks symbols from the service's
 * navigation trees (top-level declarations, merged declarations, export
 * aliases, class and interface members, CommonJS properties); each is asked
 * of toolhost in the launch users run (the command `mcp-config` prints, over
 * stdio) and of the oracle, and the sites are compared by file, line and
 * column. Symbols the oracle finds no reference of (a callback's own name)
 * are passed over.
 *
 * Run: `deno run -A bench/ts_oracle_bench.ts [--symbols N] [--seed S]`
 * (default 40 symbols per corpus, seed 31; the corpora are fetched with
 * `npm pack` once, into `bench/.data/`).
 *
 * Prints, per corpus: precision and recall of the sites toolhost marks exact
 * and of all it lists; the first call (the compiler loaded and the program
 * built), the median and slowest later call; and the server's memory (RSS of
 * the process and its workers) at the end.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { connectStdio } from "../tests/_mcp.ts";
import { treeRss } from "./_measure.ts";
import { scoreFindUsages, scoreLines } from "./_oracle_score.ts";
import {
  candidates,
  languageService,
  type OracleProject,
  oracleSites,
  sample,
} from "./_ts_oracle.ts";
import { expressProject, zodProject } from "./_ts_oracle_corpora.ts";

const arg = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
};
const SYMBOLS = arg("--symbols", 40);
const SEED = arg("--seed", 31);

async function measure(label: string, project: OracleProject): Promise<void> {
  const service = languageService(project);
  const picks = sample(candidates(service, project), SYMBOLS * 2, SEED);
  await using session = await connectStdio([project.root]);
  const scored = await scoreFindUsages(
    (args) => session.call("find_usages", args),
    picks,
    (pick) => oracleSites(service, project, pick),
    SYMBOLS,
  );
  console.log(scoreLines(`${label}: ${project.files.length} files`, scored, treeRss(session.pid!)));
}

await measure("zod 3.25.76 src/v4 (TypeScript)", await zodProject());
await measure("express 4.21.2 lib (CommonJS JavaScript)", await expressProject());
