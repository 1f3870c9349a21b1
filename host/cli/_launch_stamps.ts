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
 * The `stat` commands that describe the paths, and what they print now.
 *
 * @param paths The paths the launcher read.
 * @param listed The folders among them it listed (their times count).
 * @returns The commands and their expected output, or `null` when a path changed within the
 *   launcher's first second (a later change in that second would not show in the seconds `stat`
 *   prints).
 */
export function statLines(
  paths: ReadonlySet<string>,
  listed: ReadonlySet<string>,
): { commands: string[]; expected: string } | null {
  const groups = { full: [] as string[], identity: [] as string[] };
  for (const path of [...paths].sort()) {
    let folder = false;
    try {
      folder = Deno.statSync(path).isDirectory && !listed.has(path);
    } catch {
      // Absent: stat prints nothing for it, in either group.
    }
    groups[folder ? "identity" : "full"].push(path);
  }
  const settled = Math.floor(performance.timeOrigin / 1000) - 1;
  const commands: string[] = [];
  const expected: string[] = [];
  for (const kind of ["full", "identity"] as const) {
    if (groups[kind].length === 0) continue;
    const stamps = groups[kind].map((path) => stamp(path, kind));
    if (stamps.some((each) => each !== null && each.changed >= settled)) return null;
    expected.push(...stamps.filter((each) => each !== null).map((each) => each.text));
    commands.push(`stat -L -c ${quote(FORMATS[kind])} -- ${groups[kind].map(quote).join(" ")}`);
  }
  return { commands, expected: expected.join("\n") };
}

/**
 * What `stat -L -c FORMATS[kind]` prints of a path, and its latest change (0 for a folder's
 * identity). What a link points to is compared, not the link: a link moved to another file
 * shows as that file's device and inode.
 */
function stamp(path: string, kind: keyof typeof FORMATS): { text: string; changed: number } | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    // Absent (or not reachable): stat prints nothing for it, and so does the record.
    return null;
  }
  const mode = (info.mode ?? 0).toString(16);
  if (kind === "identity") return { text: [path, info.dev, info.ino, mode].join("|"), changed: 0 };
  const seconds = (date: Date | null) => Math.floor((date?.getTime() ?? 0) / 1000);
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
