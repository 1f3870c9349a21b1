/**
 * How long TS `rename_symbol` takes on zod 3.25's `src/v4` (75 files), in the
 * launch users run: for the renames `tests/tools/symbols/ts_oracle_test.ts`
 * makes (the same seeded sample), the dry run, then the real run, then the
 * files written back as they were (as the test does), each timed from the
 * client. The dry run checks the edits with the compiler; the real run that
 * follows it asks the same question and is answered from the dry run's verdict.
 *
 * Usage: deno run -A bench/ts_rename_bench.ts [RENAMES]
 *
 * @module
 */

import ts from "typescript";
import { connectStdio } from "../tests/_mcp.ts";
import {
  candidates,
  languageService,
  type OracleProject,
  oracleSites,
  sample,
} from "./_ts_oracle.ts";
import { copyFiles } from "./_corpora.ts";
import { zodProject } from "./_ts_oracle_corpora.ts";

/** Print a line of the result. */
function say(line: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));
}

const RENAMES = Number(Deno.args[0] ?? 12);
const shipped = await zodProject();
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-ts-rename-" }));
await copyFiles(shipped.root, dir, shipped.files);
const project: OracleProject = { ...shipped, root: dir };
const service = languageService(project);
const picks = sample(candidates(service, project), 80, 31).filter((pick) =>
  pick.kind !== ts.ScriptElementKind.alias && oracleSites(service, project, pick).size > 1
);
const originals = new Map<string, string>();
for (const path of project.files) originals.set(path, await Deno.readTextFile(`${dir}/${path}`));

await using session = await connectStdio([dir]);
const timed = async (args: Record<string, unknown>) => {
  const started = performance.now();
  const result = await session.call("rename_symbol", args);
  return { ms: performance.now() - started, error: result.isError === true };
};
const dry: number[] = [];
const real: number[] = [];
for (const pick of picks) {
  if (real.length >= RENAMES) break;
  const args = {
    path: pick.path,
    name: pick.name,
    new_name: `${pick.name.split(".").at(-1)}Renamed`,
  };
  const first = await timed({ ...args, dry_run: true });
  dry.push(first.ms);
  if (first.error) continue; // refused (the compiler's own rename would break the code)
  const second = await timed(args);
  if (second.error) throw new Error(`${pick.name}: the real run failed after its dry run`);
  real.push(second.ms);
  for (const [path, text] of originals) await Deno.writeTextFile(`${dir}/${path}`, text);
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
say(
  `${dry.length} dry runs (${dry.length - real.length} refused): median ${
    median(dry).toFixed(0)
  } ms, ` +
    `total ${(sum(dry) / 1000).toFixed(1)} s`,
);
say(
  `${real.length} real runs after their dry run: median ${median(real).toFixed(0)} ms, ` +
    `max ${Math.max(...real).toFixed(0)} ms`,
);
await Deno.remove(dir, { recursive: true });
