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

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { clientEnv, mcpConfigFor } from "../tests/_mcp.ts";
import { quantile, treeRss } from "./_measure.ts";
import { type PyPick, Pyright } from "./_py_oracle.ts";
import { count, emptyTally, scores, siteKey } from "./_ts_oracle.ts";
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
  const served = await mcpConfigFor([ROOT]);
  const transport = new StdioClientTransport({
    command: served.command,
    args: served.args,
    cwd: "/",
    env: clientEnv(),
    stderr: "ignore",
  });
  const client = new Client({ name: "py-oracle-bench", version: "1.0.0" });
  await client.connect(transport);
  const tally = emptyTally();
  const times: number[] = [];
  const misses: string[] = [];
  let used = 0;
  try {
    for (const pick of picks) {
      if (used >= SYMBOLS) break;
      const oracle = await pyright.references(pick);
      if (oracle.size === 0) continue;
      used++;
      const start = performance.now();
      const result = await client.callTool({
        name: "find_usages",
        arguments: { path: pick.path, name: pick.name, limit: 2000 },
      });
      times.push(performance.now() - start);
      const sites = result.isError ? [] : (result.structuredContent as {
        sites: Array<{ path: string; line: number; column: number; certainty: string }>;
      }).sites;
      const ours = sites.map((site) => ({
        key: siteKey(site.path, site.line, site.column),
        exact: site.certainty === "exact",
      }));
      count(tally, oracle, ours);
      const missed = [...oracle].filter((key) => !ours.some((site) => site.key === key));
      const wrong = ours.filter((site) => site.exact && !oracle.has(site.key)).map((s) => s.key);
      if (result.isError || missed.length > 0 || wrong.length > 0) {
        misses.push(
          `${pick.path} ${pick.name}: ${
            result.isError ? JSON.stringify(result.content).slice(0, 160) : ""
          } missed ${missed.slice(0, 3).join(" ")} wrong ${wrong.slice(0, 3).join(" ")}`,
        );
      }
    }
    const score = scores(tally);
    console.log(
      `${files.length} files, ${used} symbols, ${tally.oracle} oracle sites\n` +
        `  exact sites: precision ${score.exactPrecision.toFixed(3)}, recall ${
          score.exactRecall.toFixed(3)
        }` +
        ` (${tally.exactRight} of ${tally.exact} right)\n` +
        `  all sites:   precision ${score.listedPrecision.toFixed(3)}, recall ${
          score.listedRecall.toFixed(3)
        }\n` +
        `  first call ${times[0]!.toFixed(0)} ms; later calls: median ${
          quantile(times.slice(1), 0.5).toFixed(0)
        } ms; server RSS ${(treeRss(transport.pid!) / 2 ** 20).toFixed(0)} MB`,
    );
    for (const miss of misses) console.log(`  ${miss}`);
  } finally {
    await client.close();
  }
}

await main();
