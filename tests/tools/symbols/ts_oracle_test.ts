/**
 * `find_usages` and `rename_symbol` on TypeScript and JavaScript against the
 * reference implementation, the TypeScript package's own language service,
 * on code packages ship (zod 3.25's `src/v4`, express 4's CommonJS `lib/`),
 * through toolhost in the launch users run. The symbols are a seeded
 * sample (`bench/_ts_oracle.ts`: merged names, members, export aliases and
 * the rest); `bench/ts_oracle_bench.ts` prints the same numbers with timings.
 *
 * - Sites: precision and recall of the sites toolhost marks exact, and
 *   recall of all it lists, against `findReferences`.
 * - Renames, each on the corpus as shipped (the files are put back after
 *   each): the files toolhost writes are exactly the oracle's rename
 *   locations applied (so nothing in a string or comment changes), where
 *   the compiler finds no new error in any file with them; the dry run's
 *   diff is what the real run writes. Where the compiler's own rename would
 *   break the code (a key in a string type), toolhost refuses and writes
 *   nothing.
 *
 * The corpora come from the npm registry (`npm pack`, once, into
 * `bench/.data/`).
 */

import ts from "typescript";
import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../../_mcp.ts";
import {
  candidates,
  languageService,
  type OracleProject,
  oracleSites,
  type Pick,
  sample,
} from "../../../bench/_ts_oracle.ts";
import { scoreFindUsages, type SiteKey } from "../../../bench/_oracle_score.ts";
import { copyFiles } from "../../../bench/_corpora.ts";
import { expressProject, zodProject } from "../../../bench/_ts_oracle_corpora.ts";
import { appliedDiff, assertMeetsTargets } from "./_fixtures.ts";

const SYMBOLS = 40;
const RENAMES = 10;
const SEED = 31;

for (
  const [label, corpus] of [["zod src/v4", zodProject], ["express lib", expressProject]] as const
) {
  Deno.test(`TS/JS symbols on ${label} agree with the TypeScript language service`, async (t) => {
    const shipped = await corpus();
    await using root = await tempDir();
    await copyFiles(shipped.root, root.path, shipped.files);
    const project: OracleProject = { ...shipped, root: await Deno.realPath(root.path) };
    const service = languageService(project);
    const picks = sample(candidates(service, project), SYMBOLS * 2, SEED);
    const sitesOf = memoizedSites(service, project);
    await using session = await connectStdio([project.root]);

    await t.step(`find_usages of ${SYMBOLS} symbols: the oracle's sites, all exact`, async () => {
      const scored = await scoreFindUsages(
        (args) => session.call("find_usages", args),
        picks,
        sitesOf,
        SYMBOLS,
      );
      assertMeetsTargets(scored, { used: SYMBOLS, listedRecall: 0.95 });
    });

    await t.step(`${RENAMES} renames write the oracle's rename locations and compile`, async () => {
      const originals = await texts(project);
      const errorCounts = errorCounter(project, originals);
      const before = errorCounts(new Map());
      let done = 0;
      let refusals = 0;
      for (const pick of renamePicks(sitesOf, picks)) {
        if (done >= RENAMES) break;
        const newName = `${pick.name.split(".").at(-1)}Renamed`;
        const expected = oracleRename(service, project, pick, newName, originals);
        if (expected === undefined) continue;
        const breaks = newErrors(before, errorCounts(expected));
        if (breaks.length > 0) {
          // The compiler's own rename would break this code (a key in a string type, say):
          // toolhost refuses it and writes nothing.
          const refused = await session.call("rename_symbol", {
            path: pick.path,
            name: pick.name,
            new_name: newName,
          });
          assert(refused.isError, `${pick.name}: renamed though ${breaks.join(", ")}`);
          assertMatch(resultText(refused), /^conflict: .*\(the compiler, with the rename\)/);
          assertEquals(await texts(project), originals, `${pick.name}: written though refused`);
          refusals++;
          continue;
        }
        // The compiler finds no new error in the oracle's result: toolhost must write exactly it.
        done++;
        await renamesAsOracle(session, pick, newName, { originals, expected, project });
        for (const [path, text] of originals) {
          await Deno.writeTextFile(`${project.root}/${path}`, text);
        }
      }
      assertEquals(done, RENAMES);
      assert(refusals <= RENAMES / 2, `${refusals} renames refused`);
    });
  });
}

/** One rename through toolhost: dry run, then the real run; both checked against the oracle. */
async function renamesAsOracle(
  session: StdioSession,
  pick: Pick,
  newName: string,
  context: {
    originals: Map<string, string>;
    expected: Map<string, string>;
    project: OracleProject;
  },
): Promise<void> {
  const args = { path: pick.path, name: pick.name, new_name: newName };
  const dry = await session.call("rename_symbol", { ...args, dry_run: true });
  assert(!dry.isError, `${pick.name}: ${resultText(dry)}`);
  const real = await session.call("rename_symbol", args);
  assert(!real.isError, `${pick.name}: ${resultText(real)}`);
  const written = await texts(context.project);
  const changed = new Map(
    [...written].filter(([path, text]) => context.originals.get(path) !== text),
  );
  assertEquals(changed, context.expected, `${pick.name}: the files written`);
  const diff = (dry.structuredContent as { diff: string }).diff;
  assertEquals(appliedDiff(diff, context.originals), changed, `${pick.name}: the dry run's diff`);
}

/**
 * The oracle's sites of each pick, asked once (each costs a `findReferences`
 * per declaration): both steps want them of the same picks, on the same
 * program, and all are asked before the first rename is written (the
 * service's files never change version, so it would not read one anyway).
 */
function memoizedSites(
  service: ts.LanguageService,
  project: OracleProject,
): (pick: Pick) => Set<SiteKey> {
  const known = new Map<Pick, Set<SiteKey>>();
  return (pick) => {
    let sites = known.get(pick);
    if (!sites) {
      sites = oracleSites(service, project, pick);
      known.set(pick, sites);
    }
    return sites;
  };
}

/** Picks a rename can take: not an export alias (renaming one renames its target). */
function renamePicks(sitesOf: (pick: Pick) => Set<SiteKey>, picks: readonly Pick[]): Pick[] {
  return picks.filter((pick) => pick.kind !== ts.ScriptElementKind.alias && sitesOf(pick).size > 1);
}

/**
 * The files as the oracle's rename leaves them (`findRenameLocations` from
 * each declaration, with the text a shorthand needs around the new name),
 * or `undefined` when it cannot rename the symbol.
 */
function oracleRename(
  service: ts.LanguageService,
  project: OracleProject,
  pick: Pick,
  newName: string,
  originals: Map<string, string>,
): Map<string, string> | undefined {
  const byFile = new Map<string, Map<number, ts.RenameLocation>>();
  for (const position of pick.positions) {
    const locations = service.findRenameLocations(
      `${project.root}/${pick.path}`,
      position,
      false,
      false,
      { providePrefixAndSuffixTextForRename: true },
    );
    if (!locations) return undefined;
    for (const location of locations) {
      const path = location.fileName.slice(project.root.length + 1);
      if (!originals.has(path)) return undefined;
      const inFile = byFile.get(path) ?? new Map<number, ts.RenameLocation>();
      inFile.set(location.textSpan.start, location);
      byFile.set(path, inFile);
    }
  }
  const out = new Map<string, string>();
  for (const [path, locations] of byFile) {
    let text = originals.get(path)!;
    for (
      const location of [...locations.values()].sort((a, b) => b.textSpan.start - a.textSpan.start)
    ) {
      const { start, length } = location.textSpan;
      text = text.slice(0, start) + (location.prefixText ?? "") + newName +
        (location.suffixText ?? "") + text.slice(start + length);
    }
    out.set(path, text);
  }
  return out;
}

async function texts(project: OracleProject): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const path of project.files) {
    out.set(path, await Deno.readTextFile(`${project.root}/${path}`));
  }
  return out;
}

/**
 * A compiler over the corpus that takes new texts for some files: each
 * file's errors, counted by code (JavaScript checked too). One language
 * service, so that the files a check does not change (the libraries' above
 * all) are parsed once.
 */
function errorCounter(
  project: OracleProject,
  originals: Map<string, string>,
): (changed: Map<string, string>) => Map<string, number> {
  const options = { ...project.options, checkJs: true, noEmit: true };
  const names = [...originals.keys()].map((path) => `${project.root}/${path}`);
  let texts = originals;
  const versions = new Map<string, number>();
  const service = ts.createLanguageService({
    getCompilationSettings: () => options,
    getScriptFileNames: () => names,
    getScriptVersion: (name) => String(versions.get(name) ?? 0),
    getScriptSnapshot: (name) => {
      const text = texts.get(name.slice(project.root.length + 1)) ?? ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => project.root,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
  });
  return (changed) => {
    const next = new Map([...originals, ...changed]);
    for (const [path, text] of next) {
      if (texts.get(path) !== text) {
        const name = `${project.root}/${path}`;
        versions.set(name, (versions.get(name) ?? 0) + 1);
      }
    }
    texts = next;
    const counts = new Map<string, number>();
    for (const name of names) {
      const diagnostics = [
        ...service.getSyntacticDiagnostics(name),
        ...service.getSemanticDiagnostics(name),
      ];
      for (const diagnostic of diagnostics) {
        if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
        const key = `${name} TS${diagnostic.code}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    return counts;
  };
}

function newErrors(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([key, n]) => n > (before.get(key) ?? 0)).map(([key, n]) =>
    `${key}: ${before.get(key) ?? 0} -> ${n}`
  );
}
