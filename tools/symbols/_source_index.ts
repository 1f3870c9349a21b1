/**
 * The files a symbol resolver reads, kept per worker: every source file
 * under a scope with its text, keyed by (path, mtime, size), and the facts a
 * resolver derived from it (never a tree: a tree is valid only until the
 * next await). A warm call lists the scope, sees which files changed and
 * reads only those. Language-neutral: the C/C++ resolver uses it too.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { Skipped } from "../_skipped.ts";
import { decodeText, readTexts } from "../_text.ts";
import { walk } from "../_walk.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { type LinePlace, lineStartsOf, placeOf } from "./_lines.ts";

/**
 * The most memory (bytes, estimated) an index keeps: texts at two bytes a
 * character, facts as their language weighs them (about 300 bytes a token).
 */
export const DEFAULT_INDEX_BYTES = 64 * 1024 * 1024;

/** Files read per anchored pass. */
const BATCH = 32;

/** One source file as the index holds it. */
export interface SourceFile<F> {
  /** Real absolute path. */
  readonly path: string;
  /** As shown to the model. */
  readonly display: string;
  /** The decoded text. */
  readonly text: string;
  /** Modification time (ms) and size when read: the cache key with the path. */
  readonly mtime: number;
  /** Size in bytes when read. */
  readonly size: number;
  /** The facts a resolver derived, once asked for. */
  facts?: F;
  /** Offsets where lines start, once asked for. */
  lineStarts?: number[];
}

/** What a scan of a scope found. */
export interface Scan<F> {
  /** Every readable source file under the scope, by real path. */
  readonly files: ReadonlyMap<string, SourceFile<F>>;
  /** The scope's real path (a directory, or the one file it names). */
  readonly root: string;
}

/** A file found by the walk, before it is read. */
interface Listed {
  dir: string;
  name: string;
  display: string;
}

/**
 * A per-worker index of source files and their facts, least recently used
 * first out when it holds more than its budget of text.
 */
export class SourceIndex<F> {
  #files = new Map<string, SourceFile<F>>();
  #weigh: (facts: F) => number;
  #budget: number;

  /**
   * An empty index.
   *
   * @param weigh Estimates the bytes a file's facts take.
   * @param budget The most bytes kept (estimated).
   */
  constructor(weigh: (facts: F) => number = () => 0, budget: number = DEFAULT_INDEX_BYTES) {
    this.#weigh = weigh;
    this.#budget = budget;
  }

  /**
   * Every source file under a scope (walked as the file tools walk:
   * `.gitignore`, `.git` and `node_modules` skipped), read when new or changed.
   *
   * @param ctx The tool context.
   * @param scope The model's path of a directory (or one file).
   * @param accept Which file names are sources.
   * @param skipped Counts what could not be walked or read.
   * @returns The files and the scope's real path.
   * @throws {ToolError} When the scope cannot be resolved.
   */
  async scan(
    ctx: ToolContext,
    scope: string,
    accept: (name: string) => boolean,
    skipped: Skipped,
  ): Promise<Scan<F>> {
    const start = await ctx.fs.resolve(scope, "any");
    const files = new Map<string, SourceFile<F>>();
    if (!start.info?.isDirectory) {
      files.set(start.path, this.file(ctx, start));
      return { files, root: start.path };
    }
    const byDir = new Map<string, Listed[]>();
    for await (const entry of walk(ctx, start, { filesOnly: true, skipped, relevant: accept })) {
      if (!accept(entry.name)) continue;
      const dir = posix.dirname(entry.path);
      const list = byDir.get(dir) ?? [];
      list.push({ dir, name: entry.name, display: entry.display });
      byDir.set(dir, list);
    }
    let last = performance.now();
    for (const [dir, listed] of byDir) {
      for (const file of this.#readDir(ctx, dir, listed, skipped)) files.set(file.path, file);
      if (yieldDue(ctx, last)) {
        await yieldToWorker(ctx.signal);
        last = performance.now();
      }
    }
    this.#evict(files);
    return { files, root: start.path };
  }

  /**
   * One checked file, from the index when its (path, mtime, size) is unchanged.
   *
   * @param ctx The tool context.
   * @param resolved The checked file.
   * @returns The file.
   * @throws {ToolError} When it cannot be read or is binary.
   */
  file(ctx: ToolContext, resolved: ResolvedPath): SourceFile<F> {
    const mtime = resolved.info?.mtime?.getTime() ?? 0;
    const size = resolved.info?.size ?? 0;
    const hit = this.#hit(resolved.path, mtime, size);
    if (hit) return hit;
    const bytes = ctx.fs.readResolved(resolved, ctx.policy.limits.maxSearchFileBytes);
    const text = decodeText(bytes, resolved.display).text;
    return this.#store({ path: resolved.path, display: resolved.display, text, mtime, size });
  }

  /**
   * How many files the index holds, and the bytes they take (estimated).
   *
   * @returns The counts.
   */
  stats(): { files: number; bytes: number } {
    let bytes = 0;
    for (const file of this.#files.values()) bytes += this.#cost(file);
    return { files: this.#files.size, bytes };
  }

  /** The files of one directory: unchanged ones from the index, the rest read in one pass. */
  #readDir(ctx: ToolContext, dir: string, listed: Listed[], skipped: Skipped): SourceFile<F>[] {
    const out: SourceFile<F>[] = [];
    let stats: Map<string, { mtime: number; size: number }>;
    try {
      stats = new Map(
        ctx.fs.list(dir, { sizes: true }).map((
          e,
        ) => [e.name, { mtime: e.mtime?.getTime() ?? 0, size: e.size }]),
      );
    } catch (error) {
      for (const file of listed) skipped.failed(file.display, error, ctx.logger);
      return out;
    }
    const toRead: Array<Listed & { mtime: number; size: number }> = [];
    for (const file of listed) {
      const stat = stats.get(file.name);
      if (!stat) continue; // vanished since the walk listed it: nothing to resolve in it
      const path = dir === "/" ? `/${file.name}` : `${dir}/${file.name}`;
      const hit = this.#hit(path, stat.mtime, stat.size);
      if (hit) out.push(hit);
      else toRead.push({ ...file, ...stat });
    }
    for (let i = 0; i < toRead.length; i += BATCH) {
      const batch = toRead.slice(i, i + BATCH);
      const limit = ctx.policy.limits.maxSearchFileBytes;
      const texts = readTexts(ctx, dir, batch, { limit, skipped });
      batch.forEach((file, j) => {
        const text = texts[j];
        if (text === undefined) return;
        const path = dir === "/" ? `/${file.name}` : `${dir}/${file.name}`;
        const { mtime, size, display } = file;
        out.push(this.#store({ path, display, text, mtime, size }));
      });
    }
    return out;
  }

  #hit(path: string, mtime: number, size: number): SourceFile<F> | undefined {
    const hit = this.#files.get(path);
    if (!hit || hit.mtime !== mtime || hit.size !== size) return undefined;
    this.#files.delete(path);
    this.#files.set(path, hit); // most recently used last
    return hit;
  }

  #store(file: SourceFile<F>): SourceFile<F> {
    this.#files.delete(file.path);
    this.#files.set(file.path, file);
    return file;
  }

  /**
   * Over the budget, drop the least recently used files not in this scan,
   * then the facts (made again when needed) of the least recently used ones.
   */
  #evict(keep: ReadonlyMap<string, SourceFile<F>>): void {
    let bytes = 0;
    for (const file of this.#files.values()) bytes += this.#cost(file);
    for (const [path, file] of this.#files) {
      if (bytes <= this.#budget) return;
      if (keep.has(path)) continue;
      this.#files.delete(path);
      bytes -= this.#cost(file);
    }
    for (const file of this.#files.values()) {
      if (bytes <= this.#budget) return;
      if (file.facts === undefined) continue;
      bytes -= this.#cost(file) - file.text.length * 2;
      delete file.facts;
    }
  }

  #cost(file: SourceFile<F>): number {
    return file.text.length * 2 + (file.facts === undefined ? 0 : this.#weigh(file.facts));
  }
}

/**
 * Where each line of a file starts (computed once per file version).
 *
 * @param file The file.
 * @returns The offsets of line starts, the first 0.
 */
export function lineStarts(file: SourceFile<unknown>): number[] {
  return file.lineStarts ??= lineStartsOf(file.text);
}

/**
 * The 1-based line and column of an offset, and the line's text.
 *
 * @param file The file.
 * @param offset An offset in its text.
 * @returns The line, the column (UTF-16 code units) and the line's text.
 */
export function position(file: SourceFile<unknown>, offset: number): LinePlace {
  return placeOf(file.text, lineStarts(file), offset);
}
