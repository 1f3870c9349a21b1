/**
 * How a tool's sites are scored against an oracle's: each site keyed by
 * file, line and column, and precision and recall, summed over symbols, of
 * the sites the tool marks exact and of all it lists.
 *
 * @module
 */

/** A site as both sides are compared: `path:line:column`, 1-based. */
export type SiteKey = string;

/**
 * A site's key.
 *
 * @param path The file, relative to the project.
 * @param line 1-based.
 * @param column 1-based, in UTF-16 code units.
 * @returns `path:line:column`.
 */
export function siteKey(path: string, line: number, column: number): SiteKey {
  return `${path}:${line}:${column}`;
}

/** Counts for precision and recall, summed over symbols. */
export interface Tally {
  /** Sites the oracle lists. */
  oracle: number;
  /** Sites the tool marks exact, and how many of them the oracle lists. */
  exact: number;
  exactRight: number;
  /** All sites the tool lists (exact and unsure), and how many the oracle lists. */
  listed: number;
  listedRight: number;
}

/** An empty tally. */
export function emptyTally(): Tally {
  return { oracle: 0, exact: 0, exactRight: 0, listed: 0, listedRight: 0 };
}

/**
 * Add one symbol's sites to a tally.
 *
 * @param tally The running counts (changed).
 * @param oracle The oracle's sites.
 * @param ours The tool's sites with their certainty.
 */
export function count(
  tally: Tally,
  oracle: ReadonlySet<SiteKey>,
  ours: ReadonlyArray<{ key: SiteKey; exact: boolean }>,
): void {
  tally.oracle += oracle.size;
  for (const site of ours) {
    const right = oracle.has(site.key);
    tally.listed++;
    if (right) tally.listedRight++;
    if (site.exact) {
      tally.exact++;
      if (right) tally.exactRight++;
    }
  }
}

/** Precision and recall of a tally: of the exact sites, and of all listed sites. */
export function scores(tally: Tally): {
  exactPrecision: number;
  exactRecall: number;
  listedPrecision: number;
  listedRecall: number;
} {
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  return {
    exactPrecision: ratio(tally.exactRight, tally.exact),
    exactRecall: ratio(tally.exactRight, tally.oracle),
    listedPrecision: ratio(tally.listedRight, tally.listed),
    listedRecall: ratio(tally.listedRight, tally.oracle),
  };
}

/** What a `find_usages` call answers, as the SDK's client gives it. */
interface Answer {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
}

/** The counts of a run, its calls' times, the calls that failed, and the symbols whose answers differ. */
export interface Scored {
  tally: Tally;
  used: number;
  times: number[];
  errors: string[];
  differences: string[];
}

/**
 * Ask `find_usages` of each symbol the oracle finds some site of, up to
 * `wanted` symbols, and score the answers.
 *
 * @param call Calls `find_usages` with these arguments.
 * @param picks The symbols, in the order to ask them.
 * @param oracle The oracle's sites of a symbol.
 * @param wanted How many symbols to score.
 * @returns The counts, times and differences.
 */
export async function scoreFindUsages<P extends { path: string; name: string }>(
  call: (args: Record<string, unknown>) => Promise<Answer>,
  picks: Iterable<P>,
  oracle: (pick: P) => Set<SiteKey> | Promise<Set<SiteKey>>,
  wanted: number,
): Promise<Scored> {
  const scored: Scored = { tally: emptyTally(), used: 0, times: [], errors: [], differences: [] };
  for (const pick of picks) {
    if (scored.used >= wanted) break;
    const expected = await oracle(pick);
    if (expected.size === 0) continue;
    scored.used++;
    const start = performance.now();
    const result = await call({ path: pick.path, name: pick.name, limit: 2000 });
    scored.times.push(performance.now() - start);
    const sites = result.isError ? [] : (result.structuredContent as {
      sites: Array<{ path: string; line: number; column: number; certainty: string }>;
    }).sites;
    const ours = sites.map((site) => ({
      key: siteKey(site.path, site.line, site.column),
      exact: site.certainty === "exact",
    }));
    count(scored.tally, expected, ours);
    const missed = [...expected].filter((key) => !ours.some((site) => site.key === key));
    const wrong = ours.filter((site) => site.exact && !expected.has(site.key)).map((s) => s.key);
    if (result.isError) {
      scored.errors.push(
        `${pick.path} ${pick.name}: ${JSON.stringify(result.content).slice(0, 200)}`,
      );
    } else if (missed.length > 0 || wrong.length > 0) {
      scored.differences.push(
        `${pick.path} ${pick.name}: missed ${missed.slice(0, 3).join(" ")} wrong ${
          wrong.slice(0, 3).join(" ")
        }`,
      );
    }
  }
  return scored;
}

/**
 * A run's scores and times as the benches print them.
 *
 * @param label What was measured (`zod src/v4: 75 files`).
 * @param scored The run.
 * @param rss The server's memory at the end, in bytes.
 * @returns The lines.
 */
export function scoreLines(label: string, scored: Scored, rss: number): string {
  const { tally, times } = scored;
  const score = scores(tally);
  const later = [...times.slice(1)].sort((a, b) => a - b);
  const median = later[Math.floor(later.length / 2)] ?? 0;
  return [
    `${label}, ${scored.used} symbols, ${tally.oracle} oracle sites`,
    `  exact sites: precision ${score.exactPrecision.toFixed(3)}, recall ${
      score.exactRecall.toFixed(3)
    } (${tally.exactRight} of ${tally.exact} right)`,
    `  all sites:   precision ${score.listedPrecision.toFixed(3)}, recall ${
      score.listedRecall.toFixed(3)
    }`,
    `  first call ${(times[0] ?? 0).toFixed(0)} ms; later calls: median ${
      median.toFixed(0)
    } ms, slowest ${(later.at(-1) ?? 0).toFixed(0)} ms; server RSS ${
      (rss / 2 ** 20).toFixed(0)
    } MB`,
    ...scored.errors.map((line) => `  failed: ${line}`),
    ...scored.differences.map((line) => `  differs: ${line}`),
  ].join("\n");
}
