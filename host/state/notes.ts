/**
 * A human's notes to the session: left through the Hook API
 * (`POST /api/session`), shown to the agent by `bootstrap_body_state`, and
 * kept for the host's run only (the Hook API also writes each one to the
 * session's log). Bounded: the last {@linkcode MAX_NOTES}, each at most
 * {@linkcode MAX_NOTE_CHARS} characters.
 *
 * @module
 */

import type { HumanNote, HumanNotes } from "../../tools/observe/bootstrap_body_state.ts";

/** The most notes kept (the oldest go first). */
export const MAX_NOTES = 50;

/** The longest note, in characters. */
export const MAX_NOTE_CHARS = 4000;

/** The session's notes, oldest first. */
export class SessionNotes implements HumanNotes {
  #notes: HumanNote[] = [];

  /** The notes, oldest first. */
  list(): HumanNote[] {
    return [...this.#notes];
  }

  /**
   * Keep a note (past {@linkcode MAX_NOTES}, the oldest goes).
   *
   * @param note The note.
   * @throws {RangeError} When its text is empty or over {@linkcode MAX_NOTE_CHARS}.
   */
  add(note: HumanNote): void {
    if (note.text.length === 0 || note.text.length > MAX_NOTE_CHARS) {
      throw new RangeError(`A note holds 1 to ${MAX_NOTE_CHARS} characters`);
    }
    this.#notes.push(Object.freeze({ ...note }));
    if (this.#notes.length > MAX_NOTES) this.#notes.shift();
  }
}
