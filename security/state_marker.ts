/**
 * The state directory's marker: the identity (device, inode, owner, birth
 * time) of the directory the host made its own, which the host writes into
 * it (`host/state/state_dir.ts`). State is read back only from a directory
 * the marker names as it is now; a cloned, copied or assembled one has
 * another inode. Here so that the tool workers, which keep the symbol index
 * there, check it the same way.
 *
 * @module
 */

/** The marker file in the state directory. */
export const STATE_MARKER = "owner.json";

/** What identifies a directory, as the marker records it. */
export interface StateIdentity {
  /** The device. */
  readonly dev: number;
  /** The inode. */
  readonly ino: number | null;
  /** The owner. */
  readonly uid: number | null;
  /** The birth time in milliseconds, where the file system keeps one. */
  readonly birthtime: number | null;
}

/**
 * The identity of a directory, from its `lstat`.
 *
 * @param info The directory's `lstat`.
 * @returns Its identity.
 */
export function identityOf(info: Deno.FileInfo): StateIdentity {
  return {
    dev: info.dev,
    ino: info.ino,
    uid: info.uid,
    birthtime: info.birthtime?.getTime() ?? null,
  };
}

/**
 * Whether two identities name one directory.
 *
 * @param a One.
 * @param b The other.
 * @returns Whether they are the same (an unknown inode is never the same).
 */
export function sameIdentity(a: StateIdentity, b: StateIdentity): boolean {
  return a.dev === b.dev && a.ino !== null && a.ino === b.ino && a.uid === b.uid &&
    a.birthtime === b.birthtime;
}

/**
 * The identity a marker's text records.
 *
 * @param text The marker file's text.
 * @returns The identity, or `undefined` when the text is not a marker.
 */
export function parseMarker(text: string): StateIdentity | undefined {
  try {
    const saved = JSON.parse(text) as Record<string, unknown>;
    const orNull = (value: unknown) => typeof value === "number" ? value : null;
    if (typeof saved.dev !== "number" || typeof saved.ino !== "number") return undefined;
    return {
      dev: saved.dev,
      ino: saved.ino,
      uid: orNull(saved.uid),
      birthtime: orNull(saved.birthtime),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a state directory is the host's own now: its marker, a regular
 * file, names it as it is.
 *
 * @param stateDir The state directory.
 * @returns Whether what it holds may be read back.
 */
export function isOwnStateDir(stateDir: string): boolean {
  try {
    const info = Deno.lstatSync(stateDir);
    const path = `${stateDir}/${STATE_MARKER}`;
    if (!info.isDirectory || !Deno.lstatSync(path).isFile) return false;
    const marker = parseMarker(Deno.readTextFileSync(path));
    return marker !== undefined && sameIdentity(marker, identityOf(info));
  } catch {
    return false;
  }
}
