/**
 * Context anchors: named pieces of state that tools push with a
 * `ContextAnchor` directive (the latest per key wins). The host keeps them,
 * persists them in the state directory across restarts, and offers them as
 * MCP resources `toolhost://anchors/<key>`.
 *
 * @module
 */

import { MAX_ANCHOR_KEY } from "../../tools/directives.ts";
import { JsonStateFile, savedList } from "./json_store.ts";
import type { StateDirOptions } from "./state_dir.ts";

/** One anchor. */
export interface Anchor {
  /** Its key. */
  readonly key: string;
  /** Its content. */
  readonly content: string;
  /** When it was last set (UTC ISO). */
  readonly updated_at: string;
}

/** The resource URI prefix of anchors. */
export const ANCHOR_URI = "toolhost://anchors/";

/** The most anchors kept (the oldest go first). */
export const MAX_ANCHORS = 256;

/** The largest anchor content, in characters. */
export const MAX_ANCHOR_CHARS = 100_000;

/** Called when an anchor is set: whether it is new, and the anchor. */
export type AnchorListener = (anchor: Anchor, created: boolean) => void;

/** Anchors by key, persisted as one JSON file. */
export class AnchorStore {
  #file: JsonStateFile;
  #anchors = new Map<string, Anchor>();
  #listeners = new Set<AnchorListener>();

  private constructor(file: JsonStateFile) {
    this.#file = file;
  }

  /**
   * Open the store in a state directory, loading what an earlier run of the
   * host kept there: only from a directory the host made its own
   * (`state_dir.ts`); a forged `anchors.json` is set aside, never loaded.
   *
   * @param stateDir The host's state directory.
   * @param options Where to say what was set aside, and the clock.
   * @returns The store.
   */
  static async open(stateDir: string, options: StateDirOptions = {}): Promise<AnchorStore> {
    const { file, saved } = await JsonStateFile.open(stateDir, "anchors.json", options);
    const store = new AnchorStore(file);
    for (const anchor of savedList(saved, "anchors")) {
      if (isAnchor(anchor)) store.#anchors.set(anchor.key, anchor);
    }
    return store;
  }

  /** The anchors, oldest update first. */
  list(): Anchor[] {
    return [...this.#anchors.values()];
  }

  /**
   * One anchor.
   *
   * @param key Its key.
   */
  get(key: string): Anchor | undefined {
    return this.#anchors.get(key);
  }

  /**
   * Set an anchor (the latest wins) and persist the store.
   *
   * @param key Its key (1 to 128 characters).
   * @param content Its content (cut to 100,000 characters).
   * @returns Resolves when it is saved.
   * @throws {RangeError} For an empty or over-long key.
   */
  set(key: string, content: string): Promise<void> {
    if (key.length === 0 || key.length > MAX_ANCHOR_KEY) {
      throw new RangeError(
        `Cannot set anchor "${key.slice(0, 40)}": keys are 1 to ${MAX_ANCHOR_KEY} characters`,
      );
    }
    const created = !this.#anchors.has(key);
    this.#anchors.delete(key);
    const anchor = {
      key,
      content: content.slice(0, MAX_ANCHOR_CHARS),
      updated_at: new Date().toISOString(),
    };
    this.#anchors.set(key, anchor);
    while (this.#anchors.size > MAX_ANCHORS) {
      this.#anchors.delete(this.#anchors.keys().next().value!);
    }
    for (const listener of this.#listeners) listener(anchor, created);
    return this.#save();
  }

  /**
   * Be told of every change.
   *
   * @param listener The listener.
   * @returns A function that stops it.
   */
  onChange(listener: AnchorListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when every change so far is saved (a failed save is logged). */
  flush(): Promise<void> {
    return this.#file.flush();
  }

  /** Write the store, after the saves before it; a failure is logged by the file, not thrown. */
  #save(): Promise<void> {
    this.#file.save({ anchors: this.list() }).catch(() => {
      // Logged once by JsonStateFile; the anchor stays set in memory.
    });
    return this.#file.flush();
  }
}

function isAnchor(value: unknown): value is Anchor {
  if (typeof value !== "object" || value === null) return false;
  const { key, content } = value as Partial<Record<keyof Anchor, unknown>>;
  return typeof key === "string" && typeof content === "string";
}
