/**
 * Answers a resolver found, kept with what they were found from, so that a
 * symbol asked again — in this run or after a restart — is answered once its
 * inputs are checked, without reading back or resolving the files that
 * spell it (300 of 20,000 for `Message`: a second of the first call after a
 * restart). The resolver decides what its inputs are and checks them
 * (`python/_resolve_kept.ts`); this keeps the answers: in memory (the most
 * recent {@linkcode MEMORY_ANSWERS}), and on disk in the state directory
 * when the host made it its own, one JSON file per question, at most
 * {@linkcode DISK_BYTES} in all (the oldest go first). An answer over
 * {@linkcode MAX_ANSWER_BYTES} (a name a fifth of the files spell) is not kept.
 *
 * @module
 */

import { isOwnStateDir } from "../../security/state_marker.ts";
import type { ToolContext } from "../tool.ts";
import { BoundedFolder } from "./_bounded_folder.ts";
import { hashOf } from "./_facts_store.ts";
import { ANSWERS_DIR } from "./state_names.ts";

/** Answers kept in a worker's memory. */
const MEMORY_ANSWERS = 64;

/** The most bytes of answers kept on disk. */
const DISK_BYTES = 64 * 1024 * 1024;

/** The largest answer kept (as JSON). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Bump when what a resolver keeps changes shape: older answers are then ignored. */
const FORMAT = 1;

/** An answer as the file holds it. */
interface SavedAnswer {
  readonly format: number;
  readonly key: string;
  readonly answer: unknown;
}

/** Kept answers, by question. */
export class AnswerStore<A> {
  #dir: string | undefined;
  #memory = new Map<string, A>();
  #folder: BoundedFolder | undefined;

  /** @param dir The folder (made at the first save), or none: in memory only. */
  constructor(dir: string | undefined) {
    this.#dir = dir;
    this.#folder = dir === undefined ? undefined : new BoundedFolder(dir, DISK_BYTES);
  }

  /**
   * The answer kept for a question.
   *
   * @param key The question (a resolver, a scope, a file and a name, and what else decides the answer).
   * @returns The answer, or `undefined`.
   */
  get(key: string): A | undefined {
    const known = this.#memory.get(key);
    if (known !== undefined) {
      this.#memory.delete(key);
      this.#memory.set(key, known);
      return known;
    }
    if (this.#dir === undefined) return undefined;
    let saved: SavedAnswer;
    try {
      saved = JSON.parse(Deno.readTextFileSync(this.#fileOf(key)));
    } catch {
      // None, or damaged.
      return undefined;
    }
    if (saved?.format !== FORMAT || saved.key !== key) return undefined;
    this.#remember(key, saved.answer as A);
    return saved.answer as A;
  }

  /**
   * Keep an answer (a failure to write only means it is not kept on disk).
   *
   * @param key The question.
   * @param answer Plain data.
   */
  put(key: string, answer: A): void {
    const text = JSON.stringify({ format: FORMAT, key, answer } satisfies SavedAnswer);
    if (text.length > MAX_ANSWER_BYTES) return this.drop(key);
    this.#remember(key, answer);
    this.#folder?.write(this.#fileOf(key), new TextEncoder().encode(text));
  }

  /**
   * Forget an answer (its inputs moved).
   *
   * @param key The question.
   */
  drop(key: string): void {
    this.#memory.delete(key);
    this.#folder?.remove(this.#fileOf(key));
  }

  #remember(key: string, answer: A): void {
    this.#memory.delete(key);
    this.#memory.set(key, answer);
    if (this.#memory.size > MEMORY_ANSWERS) {
      this.#memory.delete(this.#memory.keys().next().value!);
    }
  }

  #fileOf(key: string): string {
    return `${this.#dir}/${hashOf(key)}.json`;
  }
}

/**
 * The worker's kept answers of one resolver.
 *
 * @param ctx The tool context.
 * @param kind The resolver (part of the shared key).
 * @returns The shared instance.
 */
export function answerStore<A>(ctx: ToolContext, kind: string): AnswerStore<A> {
  return ctx.shared(`symbol-answers-${kind}`, () => {
    // Kept on disk only in a state directory the host made its own: a shipped one is not read.
    const own = isOwnStateDir(ctx.policy.stateDir);
    return new AnswerStore<A>(own ? `${ctx.policy.stateDir}/${ANSWERS_DIR}` : undefined);
  });
}
