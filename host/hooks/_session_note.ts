/**
 * `POST /api/session`: a human's note to the session (seed 001's replaced
 * the GUI's discussion entries; this host's session log is its record and
 * is never replaced). The note is kept for `bootstrap_body_state`, written
 * to the session's `notes.jsonl`, and told as a `note_added` event.
 *
 * @module
 */

import { MAX_NOTE_CHARS } from "../state/mod.ts";
import { readJson } from "./_requests.ts";
import { failure, ok, type Route } from "./_route.ts";

/** The shape to send, said in refusals. */
const SHAPE = `send {"note": "<1 to ${MAX_NOTE_CHARS} characters>", "by"?: "<your name>"}`;

/**
 * Add a note.
 *
 * @param route The request.
 * @returns 200 `{"status": "ok", "notes", "session_log"}`, or 400 saying what to send.
 */
export async function addNote(route: Route): Promise<Response> {
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const value = (body.value ?? {}) as Record<string, unknown>;
  if (typeof value !== "object" || "session" in value) {
    return failure(
      400,
      `Cannot replace the session: its log is the host's record; to leave a note for it, ${SHAPE}`,
    );
  }
  const { note, by } = value;
  const bad = typeof note !== "string" || note.trim() === "" || note.length > MAX_NOTE_CHARS ||
    (by !== undefined && typeof by !== "string");
  if (bad) return failure(400, `Cannot add the note: ${SHAPE}`);
  const ts = new Date().toISOString();
  const who = typeof by === "string" && by !== "" ? { by: by.slice(0, 200) } : {};
  route.host.notes.add({ ts, text: note, ...who });
  route.notes.append({ ts, note, ...who, caller: route.address });
  route.host.events.emit("note_added", { ts, chars: note.length, ...who });
  return ok({
    status: "ok",
    notes: route.host.notes.list().length,
    session_log: route.notes.path,
  });
}
