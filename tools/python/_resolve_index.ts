/**
 * The Python symbol resolver's per-worker memory: each file's facts, kept by
 * (path, mtime, size) within a budget of source bytes, so that a file is
 * parsed once per version and warm calls only check what changed. The facts
 * are plain data; the tree each was collected from is deleted at once.
 *
 * Facts are also kept on disk, in the state directory (`symbols/_facts_store.ts`):
 * a file's facts not in memory are read back from there before it is parsed.
 *
 * Past the budget, the least recently used files make room, but never files
 * the current call used: a scope larger than the budget keeps a stable part
 * cached (and parses the rest each time) instead of evicting each file just
 * before the next call needs it.
 *
 * @module
 */

import { Parser } from "web-tree-sitter";
import { isOwnStateDir } from "../../security/state_marker.ts";
import { FactsStore } from "../symbols/_facts_store.ts";
import { FACTS_DIR } from "../symbols/state_names.ts";
import { decodeForLookups, PY_FACTS_CODEC } from "./_facts_codec.ts";
import { treeSitter } from "../_treesitter.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import type { PyFacts } from "./_resolve_facts.ts";
import { collectFacts } from "./_resolve_walk.ts";

/**
 * Source bytes whose facts are kept (facts cost about 7× their source): the
 * files that spell `email.message.Message` in 20,000 files of the standard
 * library's copies hold 13.3 MB, and a budget under that parses some of them
 * again at every call (`bench/scale_bench.ts`).
 */
export const DEFAULT_FACTS_BUDGET = 16 * 1024 * 1024;

/** How often reading facts back looks again whether the calls in flight are done. */
const CALL_WAIT_MS = 20;

interface Entry {
  readonly mtime: number;
  readonly size: number;
  readonly facts: PyFacts;
  /** The call that last used it. */
  call: number;
}

/** Facts of Python files, by real path and version. */
export class PyIndex {
  #entries = new Map<string, Entry>();
  #bytes = 0;
  #budget: number;
  #parser: Parser | undefined;
  #call = 0;
  #store: FactsStore<PyFacts> | undefined;

  /**
   * @param budget Source bytes whose facts are kept in memory.
   * @param store Where facts are kept between runs (none: in memory only).
   */
  constructor(budget: number = DEFAULT_FACTS_BUDGET, store?: FactsStore<PyFacts>) {
    this.#budget = budget;
    this.#store = store;
  }

  /**
   * Start a call: make sure the parser is ready (the grammar loads once per
   * worker); what the call uses is kept over what earlier calls used.
   *
   * @param ctx The tool context.
   */
  async ready(ctx: ToolContext): Promise<void> {
    this.#call++;
    if (this.#parser) return;
    const tree = await treeSitter(ctx).parseText("", "python");
    try {
      this.#parser ??= new Parser();
      this.#parser.setLanguage(tree.language);
    } finally {
      tree.delete();
    }
  }

  /**
   * The facts of a file's version, when known.
   *
   * @param path The real path.
   * @param mtime Its modification time (ms).
   * @param size Its size.
   * @returns The facts, or `undefined`.
   */
  cached(path: string, mtime: number, size: number): PyFacts | undefined {
    const entry = this.#entries.get(path);
    if (!entry || entry.mtime !== mtime || entry.size !== size) {
      const stored = this.#store?.load(path, mtime, size);
      if (stored) this.#keep(path, mtime, size, stored);
      return stored;
    }
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    entry.call = this.#call;
    return entry.facts;
  }

  /**
   * Parse a file's text and keep its facts.
   *
   * @param path The real path.
   * @param mtime Its modification time (ms).
   * @param size Its size.
   * @param text Its decoded text.
   * @returns The facts.
   * @throws {TypeError} When {@linkcode ready} was not awaited first.
   */
  add(path: string, mtime: number, size: number, text: string): PyFacts {
    if (!this.#parser) throw new TypeError("Cannot parse Python: the resolver is not ready");
    const tree = this.#parser.parse(text);
    if (!tree) throw new Error("tree-sitter returned no tree for a python source");
    let facts: PyFacts;
    try {
      facts = collectFacts(tree, text);
    } finally {
      tree.delete();
    }
    this.#store?.save(path, mtime, size, facts);
    this.#keep(path, mtime, size, facts);
    return facts;
  }

  /**
   * Read kept facts back into memory, the most recently parsed first, while
   * the budget has room: those of files whose version is still the one kept,
   * decoded as lookups read them.
   * Calls go first: while one is in flight (`ctx.callsInFlight`), it waits.
   *
   * @param ctx The tool context (the work yields to calls).
   * @param current A file's version now (its listing entry), or `undefined` when it is not in scope.
   */
  async preload(
    ctx: ToolContext,
    current: (path: string) => { mtime: Date | null; size: number } | undefined,
  ): Promise<void> {
    let last = performance.now();
    for (const saved of this.#store?.recent() ?? []) {
      if (this.#bytes + saved.size > this.#budget) return;
      const now = current(saved.path);
      const fresh = now && (now.mtime?.getTime() ?? 0) === saved.mtime && now.size === saved.size;
      if (fresh && !this.#entries.has(saved.path)) {
        decodeForLookups(saved.facts);
        this.#keep(saved.path, saved.mtime, saved.size, saved.facts);
      }
      if (yieldDue(ctx, last) || ctx.callsInFlight?.()) {
        await yieldToWorker(ctx.signal);
        while (ctx.callsInFlight?.()) {
          await new Promise((resolve) => setTimeout(resolve, CALL_WAIT_MS));
        }
        last = performance.now();
      }
    }
  }

  /** Keep facts in memory, making room if the budget allows. */
  #keep(path: string, mtime: number, size: number, facts: PyFacts): void {
    this.#forget(path);
    for (const [key, entry] of this.#entries) {
      if (this.#bytes + size <= this.#budget || entry.call === this.#call) break;
      this.#forget(key, entry);
    }
    if (this.#bytes + size <= this.#budget) {
      this.#entries.set(path, { mtime, size, facts, call: this.#call });
      this.#bytes += size;
    }
  }

  #forget(path: string, entry = this.#entries.get(path)): void {
    if (!entry) return;
    this.#entries.delete(path);
    this.#bytes -= entry.size;
  }
}

/**
 * The worker's Python index.
 *
 * @param ctx The tool context.
 * @returns The shared instance.
 */
export function pyIndex(ctx: ToolContext): PyIndex {
  return ctx.shared("python-symbol-index", () => {
    // Kept on disk only in a state directory the host made its own: a shipped one is not read.
    const dir = `${ctx.policy.stateDir}/${FACTS_DIR}`;
    const own = isOwnStateDir(ctx.policy.stateDir);
    return new PyIndex(
      DEFAULT_FACTS_BUDGET,
      own ? new FactsStore(dir, "python", PY_FACTS_CODEC) : undefined,
    );
  });
}
