/**
 * What the symbol resolvers share around their index: opening a scope's
 * sources for one name (listing, reading, and making the facts of the files
 * that contain it), rounds of making the facts a resolution found missing,
 * and the answer with its sites placed in lines (`_sites.ts`).
 * Language-neutral: the TS/JS and C/C++ resolvers use it.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { ToolError } from "../../security/errors.ts";
import type { SymbolSites } from "./_resolver.ts";
import { type Skipped, skipReason } from "../_skipped.ts";
import type { ToolContext } from "../tool.ts";
import { Pacer } from "../_walk.ts";
import type { SourceFile, SourceIndex } from "./_source_index.ts";
import { placeSites, type RawSite } from "./_sites.ts";
import { wordPattern } from "./_lines.ts";

/** A file's facts, or why it has none. */
export type FactsOr<F extends object> = F | { error: string };

/** The files a call resolves across. */
export interface Opened<F extends object> {
  /** Every source file under the scope (and the target's file), by real path. */
  files: Map<string, SourceFile<FactsOr<F>>>;
  /** The target's file. */
  file: SourceFile<FactsOr<F>>;
  /** The files whose text has the name as a whole word (their facts made). */
  candidates: string[];
  /** The scope's real path (its directory, when it names a file). */
  root: string;
}

/** What {@linkcode openSources} needs to know. */
export interface OpenOptions<F extends object> {
  /** The target's file (a model path). */
  path: string;
  /** The scope (a model path). */
  scope: string;
  /** The name sites must have. */
  name: string;
  /** Which file names are sources. */
  source: RegExp;
  /** The language, for messages (`TS/JS`). */
  language: string;
  /** Makes one file's facts (parsing it). */
  make: (file: SourceFile<FactsOr<F>>) => Promise<F>;
  /** Counts what could not be read or parsed. */
  skipped: Skipped;
}

/**
 * List a scope's sources through the index, add the target's file, and make
 * the facts of the files that contain the name as a word (and of the target's).
 *
 * @param ctx The tool context.
 * @param index The language's index.
 * @param options The target, scope, name and language.
 * @returns The files.
 * @throws {ToolError} `invalid_argument` when the target's file is not a source of the language;
 *   `unsupported` when it cannot be parsed.
 */
export async function openSources<F extends object>(
  ctx: ToolContext,
  index: SourceIndex<FactsOr<F>>,
  options: OpenOptions<F>,
): Promise<Opened<F>> {
  const { source, skipped } = options;
  const resolved = await ctx.fs.resolve(options.path, "file");
  if (!source.test(resolved.path)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read "${resolved.display}" as ${options.language} source`,
    );
  }
  const scan = await index.scan(ctx, options.scope, (name) => source.test(name), skipped);
  const files = new Map(scan.files);
  if (!files.has(resolved.path)) files.set(resolved.path, index.file(ctx, resolved));
  const file = files.get(resolved.path)!;
  const word = wordPattern(options.name);
  const candidates = [...files.values()].filter((f) =>
    f.text.includes(options.name) && word.test(f.text)
  );
  await makeFacts(ctx, [file, ...candidates], options.make, skipped);
  if ("error" in file.facts!) {
    throw new ToolError(
      "unsupported",
      `Cannot resolve names in "${file.display}": ${file.facts.error}`,
    );
  }
  const root = scan.files.has(scan.root) ? posix.dirname(scan.root) : scan.root;
  return { files, file, candidates: candidates.map((f) => f.path), root };
}

/**
 * Make the facts of files that have none yet (once per file version); a file
 * that cannot be parsed is counted as skipped.
 *
 * @param ctx The tool context.
 * @param files The files.
 * @param make Makes one file's facts.
 * @param skipped Counts what could not be parsed.
 * @throws What `make` throws, but for `unsupported` errors and exhausted stacks.
 */
export async function makeFacts<F extends object>(
  ctx: ToolContext,
  files: readonly SourceFile<FactsOr<F>>[],
  make: (file: SourceFile<FactsOr<F>>) => Promise<F>,
  skipped: Skipped,
): Promise<void> {
  const pacer = new Pacer(ctx, "Resolving");
  for (const file of files) {
    if (!file.facts) {
      try {
        file.facts = await make(file);
      } catch (error) {
        if (!(error instanceof ToolError) && !(error instanceof RangeError)) throw error;
        file.facts = { error: skipReason(error, file.display) };
      }
    }
    if ("error" in file.facts) skipped.add(file.display, file.facts.error);
    await pacer.tick();
  }
}

/** What a resolver's program exposes to {@linkcode resolveRounds}. */
export interface RoundProgram<F extends object> {
  /** Forget what the last round resolved (and the files it found missing). */
  reset(): void;
  /** Files whose facts the last round needed and did not have. */
  readonly missing: ReadonlySet<string>;
  /** A file by its path. */
  file(path: string): SourceFile<FactsOr<F>> | undefined;
}

/**
 * The files a call resolves across, as a resolution reads them: a file's
 * facts, or a note that they are missing (made before the next round).
 * A language's program extends it with what a name there refers to.
 */
export class SourceProgram<F extends object> implements RoundProgram<F> {
  /** Files whose facts were wanted but not made yet. */
  readonly missing = new Set<string>();
  #files: ReadonlyMap<string, SourceFile<FactsOr<F>>>;

  /**
   * The program of some files.
   *
   * @param files The files, by real path.
   */
  constructor(files: ReadonlyMap<string, SourceFile<FactsOr<F>>>) {
    this.#files = files;
  }

  /** Forget what was resolved (after more facts were made). */
  reset(): void {
    this.missing.clear();
  }

  /**
   * A file of the program.
   *
   * @param path Its real path.
   * @returns The file, or undefined.
   */
  file(path: string): SourceFile<FactsOr<F>> | undefined {
    return this.#files.get(path);
  }

  /**
   * A file's facts; notes it as missing when they are not made yet.
   *
   * @param path Its real path.
   * @returns The facts, or undefined (no such file, not made yet, or it could not be parsed).
   */
  facts(path: string): F | undefined {
    const file = this.#files.get(path);
    if (!file) return undefined;
    if (!file.facts) {
      this.missing.add(path);
      return undefined;
    }
    return "error" in file.facts ? undefined : file.facts;
  }
}

/** How many rounds of "make the facts a resolution asked for" a call may take. */
const MAX_ROUNDS = 64;

/**
 * Resolve; make the facts the resolution found missing; and again, until
 * nothing is missing (or {@linkcode MAX_ROUNDS} is reached).
 *
 * @param ctx The tool context.
 * @param program The resolver's program over the opened files.
 * @param resolve One round: the target and its raw sites.
 * @param make Makes one file's facts.
 * @param skipped Counts what could not be parsed.
 * @returns The last round's answer.
 */
export async function resolveRounds<F extends object, T>(
  ctx: ToolContext,
  program: RoundProgram<F>,
  resolve: () => { found: T; raw: RawSite[] },
  make: (file: SourceFile<FactsOr<F>>) => Promise<F>,
  skipped: Skipped,
): Promise<{ found: T; raw: RawSite[] }> {
  for (let round = 0;; round++) {
    program.reset();
    const answer = resolve();
    if (program.missing.size === 0 || round >= MAX_ROUNDS) return answer;
    const missing = [...program.missing].map((path) => program.file(path)!);
    await makeFacts(ctx, missing, make, skipped);
  }
}

/** A target as the resolvers find it: its name and where it is defined. */
export interface FoundTarget {
  /** The symbol's own name (its last part). */
  name: string;
  /** The defining file's path and line range. */
  definition: { file: string; lines: readonly [number, number] };
}

/**
 * The resolver's answer: the definition's `path:start-end`, the sites placed
 * in lines, and a note when the definition lies in another file than the
 * one the model named.
 *
 * @param program The program the sites were found in.
 * @param opened The opened sources.
 * @param found The target.
 * @param raw Its raw sites.
 * @param names The name as the model gave it, and what the language calls the place it is made.
 * @returns The answer, without `renameConflicts` (the caller adds its own).
 */
export function symbolSites<F extends object>(
  program: RoundProgram<F>,
  opened: Opened<F>,
  found: FoundTarget,
  raw: readonly RawSite[],
  names: { target: string; kind: "definition" | "declaration" },
): SymbolSites {
  const definition = program.file(found.definition.file)!;
  const [first, last] = found.definition.lines;
  const out: SymbolSites = {
    definition: `${definition.display}:${first}-${last}`,
    sites: placeSites((path) => program.file(path)!, raw, found.name.length, found.definition),
    filesSearched: opened.files.size,
  };
  if (found.definition.file !== opened.file.path) {
    const verb = names.kind === "definition" ? "defined" : "declared";
    out.note = `"${names.target}" in ${opened.file.display} is ${verb} in ${definition.display}: ` +
      `these are the sites of that ${names.kind}`;
  }
  return out;
}
