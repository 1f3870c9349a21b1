/**
 * The launch record's stamps of the paths the launcher read: the `stat`
 * commands `bin/toolhost start` runs to compare them, and what they print
 * at the time of the record (`launch_record.ts`).
 *
 * @module
 */

/**
 * What `stat` prints of a path: all of it for a file (or a folder the
 * launcher listed), and of a folder only what it is — its inode and mode,
 * not its times, which change with every file made in it (a root, the
 * state directory). {@linkcode stamp} renders the same.
 */
const FORMATS = Object.freeze({ full: "%n|%d|%i|%s|%Y|%Z|%f", identity: "%n|%d|%i|%f" });

/**
 * The `stat` commands that describe the paths, and what they print now:
 * what each path leads to (`stat -L`, in full or, for a folder, its
 * identity), and what each path itself is (`stat`, its identity: a link
 * put in place of a folder, or a folder in place of a link, shows there).
 *
 * @param paths The paths the launcher read.
 * @param listed The folders among them it listed (their times count).
 * @param settled Changes at or after this time (seconds) are too recent to record.
 * @returns The commands and their expected output, or `null` when a path changed at or after
 *   `settled` (a later change in the same second would not show in the seconds `stat` prints)
 *   or, for a path that is absent, the folder that would hold it did (it may have just gone).
 */
export function statLines(
  paths: ReadonlySet<string>,
  listed: ReadonlySet<string>,
  settled: number,
): { commands: string[]; expected: string } | null {
  const groups = { full: [] as string[], identity: [] as string[] };
  for (const path of [...paths].sort()) {
    let folder = false;
    try {
      folder = Deno.statSync(path).isDirectory && !listed.has(path);
    } catch {
      // Absent: stat prints nothing for it; the folder it would be in must be settled.
      if (latestChangeAbove(path) >= settled) return null;
    }
    groups[folder ? "identity" : "full"].push(path);
  }
  const runs = [
    { kind: "full", follow: true, paths: groups.full },
    { kind: "identity", follow: true, paths: groups.identity },
    { kind: "identity", follow: false, paths: [...paths].sort() },
  ] as const;
  const commands: string[] = [];
  const expected: string[] = [];
  for (const { kind, follow, paths: some } of runs) {
    if (some.length === 0) continue;
    const stamps = some.map((path) => stamp(path, kind, follow));
    if (stamps.some((each) => each !== null && each.changed >= settled)) return null;
    expected.push(...stamps.filter((each) => each !== null).map((each) => each.text));
    commands.push(
      `stat${follow ? " -L" : ""} -c ${quote(FORMATS[kind])} -- ${some.map(quote).join(" ")}`,
    );
  }
  return { commands, expected: expected.join("\n") };
}

/** The latest change (seconds) of the nearest existing folder above a path that is absent. */
function latestChangeAbove(path: string): number {
  for (let at = path.replace(/\/+$/, ""); at.includes("/");) {
    at = at.slice(0, at.lastIndexOf("/")) || "/";
    try {
      const info = Deno.statSync(at);
      return Math.max(seconds(info.mtime), seconds(info.ctime));
    } catch {
      if (at === "/") break;
    }
  }
  return Infinity;
}

/** A time in whole seconds, as `stat` prints it. */
function seconds(date: Date | null): number {
  return Math.floor((date?.getTime() ?? 0) / 1000);
}

/**
 * What `stat [-L] -c FORMATS[kind]` prints of a path, and its latest change (for an identity,
 * which holds no times, when it was made).
 */
function stamp(
  path: string,
  kind: keyof typeof FORMATS,
  follow: boolean,
): { text: string; changed: number } | null {
  let info: Deno.FileInfo;
  try {
    info = follow ? Deno.statSync(path) : Deno.lstatSync(path);
  } catch {
    // Absent (or not reachable): stat prints nothing for it, and so does the record.
    return null;
  }
  const mode = (info.mode ?? 0).toString(16);
  // An identity holds no times, but one made anew (a folder put back) was born just now.
  if (kind === "identity") {
    return { text: [path, info.dev, info.ino, mode].join("|"), changed: seconds(info.birthtime) };
  }
  const mtime = seconds(info.mtime);
  const ctime = seconds(info.ctime);
  return {
    text: [path, info.dev, info.ino, info.size, mtime, ctime, mode].join("|"),
    changed: Math.max(mtime, ctime),
  };
}

/**
 * A word the shell reads back as exactly this text.
 *
 * @param text The text.
 * @returns It in single quotes.
 */
export function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
