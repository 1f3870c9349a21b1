/**
 * Whether the host may load back what its state directory holds.
 *
 * Anchors, the todo list, the interaction log and the session logs are host
 * state: the host loads them at start and serves them to the model
 * (resources, `bootstrap_body_state`, `todo_read`, `read_interactions`). A cloned
 * repository can ship a `.toolhost/` of its own, and a tool could assemble a
 * directory elsewhere and move it into place; neither may speak as the host.
 *
 * So the host records the identity of its state directory (device, inode,
 * owner, birth time) in a marker file inside it, and loads state only when
 * the marker names the directory as it is now. Another directory at that
 * path (cloned, copied, assembled and moved) has another inode: what it
 * holds is set aside as `<name>.untrusted-<time>`, never loaded, the host
 * says so once, and then marks the directory as its own, empty of state.
 * While the host runs no tool reaches into the state directory, nor moves it
 * or a directory that holds it (the resolver hides it and refuses such
 * moves), so once marked it holds only what the host wrote.
 *
 * The directory keeps itself out of version control: once it is the host's
 * own, the host writes a `.gitignore` holding `*` in it (as it writes the
 * marker: atomically, from the host's process, never through a tool), unless
 * one is there already.
 *
 * @module
 */

import {
  identityOf,
  parseMarker,
  sameIdentity,
  STATE_MARKER,
  type StateIdentity,
} from "../../security/state_marker.ts";
import {
  ANSWERS_DIR,
  FACTS_DIR,
  SCOPES_DIR,
  WORD_INDEX_FILE,
} from "../../tools/symbols/state_names.ts";
import { type HostLogger, stderrLogger } from "../logger.ts";

export { STATE_MARKER, type StateIdentity } from "../../security/state_marker.ts";

/** The file that keeps the state directory out of `git status`. */
export const STATE_GITIGNORE = ".gitignore";

/** What {@linkcode STATE_GITIGNORE} says: everything here is ignored, itself included. */
const GITIGNORE_TEXT = "# toolhost's state (written by toolhost): never committed\n*\n";

/** Where the scopes of clients limited to some roots keep their state (`host/clients/scopes.ts`). */
export const CLIENT_SCOPES_DIR = "client-scopes";

/** What the host loads back from its state directory: set aside together when it is not trusted. */
export const STATE_ENTRIES: readonly string[] = Object.freeze([
  "anchors.json",
  "todos.json",
  "interactions",
  "sessions",
  "http-token",
  "hooks-token",
  // Appended to, never loaded: set aside too, so that a shipped one (a symlink) is never written through.
  "approvals.jsonl",
  // The symbol tools' word index, kept facts, listings and answers: forged ones could hide uses of
  // a name from a rename or from find_usages.
  WORD_INDEX_FILE,
  FACTS_DIR,
  SCOPES_DIR,
  ANSWERS_DIR,
  // The state of clients limited to some roots (each checked again as a state directory of its own).
  CLIENT_SCOPES_DIR,
]);

/** Options for {@linkcode trustStateDir} and {@linkcode trustedStateFile}. */
export interface StateDirOptions {
  /** Where to say what was set aside (default: stderr, as the host's logger says it). */
  logger?: HostLogger;
  /** The clock, for the names of what is set aside. */
  now?: () => Date;
}

/**
 * Decide whether the state directory is the host's own, making it so when it
 * is not: what it holds of {@linkcode STATE_ENTRIES} (and a stale marker) is
 * set aside, unloaded, and a marker of the directory as it is now is written.
 *
 * @param stateDir The state directory (its real path).
 * @param options The logger and the clock.
 * @returns Whether what it holds may be loaded: false only when it is missing,
 *   not a directory, or could not be made the host's own.
 * @example
 * ```ts
 * const trusted = await trustStateDir(policy.stateDir, { logger });
 * ```
 */
export async function trustStateDir(
  stateDir: string,
  options: StateDirOptions = {},
): Promise<boolean> {
  const logger = options.logger ?? stderrLogger();
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(stateDir);
  } catch {
    return false;
  }
  if (!info.isDirectory) {
    logger.log("warn", `State directory "${stateDir}" is not a directory: no state is loaded`);
    return false;
  }
  const identity = identityOf(info);
  const marker = await readMarker(stateDir);
  if (marker !== undefined && sameIdentity(marker, identity)) {
    await keepOutOfVersionControl(stateDir, logger);
    return true;
  }
  const reason = marker === undefined
    ? "this host did not make it (it has no marker)"
    : "it is not the directory this host made (it was copied, replaced or moved into place)";
  const suffix = `untrusted-${(options.now?.() ?? new Date()).toISOString().replace(/[-:.]/g, "")}`;
  let setAside: string[];
  try {
    setAside = await setAsideState(stateDir, suffix);
    await writeMarker(stateDir, identity);
  } catch (error) {
    logger.log(
      "warn",
      `Not loading anchors, todos or the logs from "${stateDir}": ${reason}, and it could not be made this host's own`,
      error instanceof Error ? error.message : String(error),
    );
    return false;
  }
  if (setAside.length > 0) {
    logger.log(
      "warn",
      `Set aside ${
        setAside.join(", ")
      } in the state directory "${stateDir}" as <name>.${suffix}, not loaded: ${reason}`,
    );
  }
  await keepOutOfVersionControl(stateDir, logger);
  return true;
}

/**
 * The text of a state file, only from a trusted state directory
 * ({@linkcode trustStateDir}) and only when it is a regular file.
 *
 * @param stateDir The state directory (its real path).
 * @param name One of {@linkcode STATE_ENTRIES}.
 * @param options The logger and the clock.
 * @returns Its text, or `undefined` when there is none to load.
 * @throws {RangeError} When `name` is not a state file.
 * @example
 * ```ts
 * const saved = await trustedStateFile(policy.stateDir, "anchors.json");
 * ```
 */
export async function trustedStateFile(
  stateDir: string,
  name: string,
  options: StateDirOptions = {},
): Promise<string | undefined> {
  if (!STATE_ENTRIES.includes(name) || name === "interactions" || name === "sessions") {
    throw new RangeError(`Cannot load "${name}": it is not a state file`);
  }
  if (!(await trustStateDir(stateDir, options))) return undefined;
  const path = `${stateDir}/${name}`;
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return undefined;
  }
  if (!info.isFile || (info.nlink ?? 1) > 1) {
    (options.logger ?? stderrLogger()).log(
      "warn",
      `Not loading "${path}": it is not a regular file with one link`,
    );
    return undefined;
  }
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** The marker's identity, or `undefined` when it is missing, not a regular file or not a marker. */
async function readMarker(stateDir: string): Promise<StateIdentity | undefined> {
  const path = `${stateDir}/${STATE_MARKER}`;
  try {
    if (!(await Deno.lstat(path)).isFile) return undefined;
    return parseMarker(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
}

/** Write the marker atomically. */
async function writeMarker(stateDir: string, identity: StateIdentity): Promise<void> {
  const note = "toolhost loads state from this directory only while this names it";
  await writeOwnFile(stateDir, STATE_MARKER, `${JSON.stringify({ note, ...identity }, null, 1)}\n`);
}

/**
 * Write the state directory's `.gitignore` when it has none: a file there
 * already (the host's, or one the user wrote) is left as it is.
 */
async function keepOutOfVersionControl(stateDir: string, logger: HostLogger): Promise<void> {
  const path = `${stateDir}/${STATE_GITIGNORE}`;
  try {
    if ((await Deno.lstat(path)).isFile) return;
  } catch {
    // Missing (or unreadable, which the write below reports): written below.
  }
  try {
    await writeOwnFile(stateDir, STATE_GITIGNORE, GITIGNORE_TEXT);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    logger.log("warn", `Cannot write "${path}": the state directory may show in git status`, why);
  }
}

/**
 * Write a file of the host's own into the state directory atomically: a new
 * temp file, then a rename over whatever has the name (a link is replaced,
 * never followed).
 */
async function writeOwnFile(stateDir: string, name: string, text: string): Promise<void> {
  const temp = `${stateDir}/${name}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeTextFile(temp, text, { createNew: true });
  try {
    await Deno.rename(temp, `${stateDir}/${name}`);
  } catch (error) {
    await Deno.remove(temp).catch(() => {
      // Best effort: the rename's error, thrown below, is the one that matters.
    });
    throw error;
  }
}

/**
 * Rename every state entry present (and a marker that is not a regular file)
 * to `<name>.<suffix>`; an `interactions` directory is made again, empty, for
 * a log that holds its path.
 *
 * @returns The names set aside.
 */
async function setAsideState(stateDir: string, suffix: string): Promise<string[]> {
  const setAside: string[] = [];
  for (const name of [...STATE_ENTRIES, STATE_MARKER]) {
    const path = `${stateDir}/${name}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch {
      continue;
    }
    if (name === STATE_MARKER && info.isFile) continue;
    await Deno.rename(path, `${path}.${suffix}`);
    if (name === "interactions") await Deno.mkdir(path);
    setAside.push(name);
  }
  return setAside;
}
