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

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { clientEnv, mcpConfigFor } from "../tests/_mcp.ts";
import { quantile, treeRss } from "./_measure.ts";
import {
  candidates,
  count,
  emptyTally,
  languageService,
  type OracleProject,
  oracleSites,
  sample,
  scores,
  siteKey,
} from "./_ts_oracle.ts";
import { expressProject, zodProject } from "./_ts_oracle_corpora.ts";

const arg = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
};
const SYMBOLS = arg("--symbols", 40);
const SEED = arg("--seed", 31);

interface Site {
  path: string;
  line: number;
  column: number;
  certainty: string;
}

async function connect(root: string): Promise<{ client: Client; pid: number }> {
  const served = await mcpConfigFor([root]);
  const transport = new StdioClientTransport({
    command: served.command,
    args: served.args,
    cwd: "/",
    env: clientEnv(),
    stderr: "ignore",
  });
  const client = new Client({ name: "ts-oracle-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

async function measure(label: string, project: OracleProject): Promise<void> {
  const service = languageService(project);
  const picks = sample(candidates(service, project), SYMBOLS * 2, SEED);
  const tally = emptyTally();
  const times: number[] = [];
  const failures: string[] = [];
  const { client, pid } = await connect(project.root);
  let used = 0;
  try {
    for (const pick of picks) {
      if (used >= SYMBOLS) break;
      const oracle = oracleSites(service, project, pick);
      if (oracle.size === 0) continue;
      used++;
      const start = performance.now();
      const result = await client.callTool({
        name: "find_usages",
        arguments: { path: pick.path, name: pick.name, limit: 2000 },
      });
      times.push(performance.now() - start);
      const sites = result.isError ? [] : (result.structuredContent as { sites: Site[] }).sites;
      if (result.isError) {
        failures.push(`${pick.path} ${pick.name}: ${JSON.stringify(result.content)}`);
      }
      count(
        tally,
        oracle,
        sites.map((site) => ({
          key: siteKey(site.path, site.line, site.column),
          exact: site.certainty === "exact",
        })),
      );
    }
    const rss = treeRss(pid);
    const score = scores(tally);
    const later = times.slice(1);
    console.log(
      `${label}: ${project.files.length} files, ${used} symbols, ${tally.oracle} oracle sites\n` +
        `  exact sites: precision ${score.exactPrecision.toFixed(3)}, recall ${
          score.exactRecall.toFixed(3)
        }` +
        ` (${tally.exactRight} of ${tally.exact} right)\n` +
        `  all sites:   precision ${score.listedPrecision.toFixed(3)}, recall ${
          score.listedRecall.toFixed(3)
        }\n` +
        `  first call ${times[0]!.toFixed(0)} ms; later calls: median ${
          quantile(later, 0.5).toFixed(0)
        } ms,` +
        ` slowest ${Math.max(...later).toFixed(0)} ms; server RSS ${(rss / 2 ** 20).toFixed(0)} MB`,
    );
    for (const failure of failures) console.log(`  failed: ${failure}`);
  } finally {
    await client.close();
  }
}

await measure("zod 3.25.76 src/v4 (TypeScript)", await zodProject());
await measure("express 4.21.2 lib (CommonJS JavaScript)", await expressProject());
