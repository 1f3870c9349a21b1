/**
 * What the host keeps and observes: its state directory and the JSON state
 * files in it (anchors, the todo list), the sessions' reads for stale-read
 * protection, the session logs, call statistics, and the sinks the calls
 * are written to.
 * Other folders import from here.
 *
 * @module
 */

export {
  type Anchor,
  ANCHOR_URI,
  type AnchorListener,
  AnchorStore,
  MAX_ANCHOR_CHARS,
  MAX_ANCHORS,
} from "./anchors.ts";
export { HOOKS_TOKEN_FILE, hooksToken, httpToken, TOKEN_FILE } from "./http_token.ts";
export { IdleWork, LATEST_MS } from "./idle_work.ts";
export { JsonStateFile } from "./json_store.ts";
export { observationOf, openSinks, type SinkOptions, type Sinks } from "./observation.ts";
export { PerformanceStats } from "./performance.ts";
export { lineDiff, MAX_NOTICE_CHARS, ReadTracker } from "./stale_reads.ts";
export {
  CLIENT_SCOPES_DIR,
  STATE_ENTRIES,
  STATE_GITIGNORE,
  STATE_MARKER,
  type StateDirOptions,
  type StateIdentity,
  trustedStateFile,
  trustStateDir,
} from "./state_dir.ts";
export { type Direction, newSessionId } from "./_session_lines.ts";
export { readSessionProcesses } from "./_session_reader.ts";
export { openSessionLog, SessionLog, type SessionLogOptions } from "./sessions.ts";
export { TodoFileStore } from "./todos.ts";
export { MAX_NOTE_CHARS, MAX_NOTES, SessionNotes } from "./notes.ts";
