/**
 * The workflow bench's project: CPython's `multiprocessing` package (from the
 * python3 on PATH) copied to `mproc/` in a temp directory, its absolute
 * `multiprocessing` imports rewritten (also the ones in the command lines it
 * gives child processes), so that nothing the interpreter ships shadows it.
 * Its `util.Finalize` class is used by 11 files of the package (10 besides
 * its own, as `util.Finalize` or imported by name), which makes the rename of
 * the seven-task workflow a genuine 11-file rename. Python's `ast` and
 * `tokenize` (`bench/_workflow_oracle.py`) say what each task must find or
 * leave on disk; the package must still run (a pool under spawn, forkserver
 * and fork) after the agent's edits.
 *
 * @module
 */

/** The package's name in the project. */
export const PACKAGE = "mproc";

const ORACLE = new URL("./_workflow_oracle.py", import.meta.url).pathname;

/** Every file of a tree: path relative to the tree → text. */
export type Snapshot = Map<string, string>;

/** Run a command; its stdout, or an error with its stderr. */
async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const output = await new Deno.Command(command, {
    args,
    ...options,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${decode(output.stderr).slice(-2000)}`);
  }
  return decode(output.stdout);
}

/**
 * The stdlib `multiprocessing` folder of the python3 on PATH.
 *
 * @returns Its absolute path.
 * @throws {Error} When python3 cannot say.
 */
export async function stdlibPackage(): Promise<string> {
  const code = "import sysconfig;print(sysconfig.get_paths()['stdlib'])";
  return `${(await run("python3", ["-c", code])).trim()}/multiprocessing`;
}

/**
 * A module's text with its absolute `multiprocessing` imports pointing at the
 * copy (also those inside the command lines it gives child processes).
 *
 * @param text The module.
 * @returns The text for `mproc/`.
 */
export function renamePackage(text: string): string {
  return text.replace(/\b(from|import) multiprocessing(?=[.\s])/g, `$1 ${PACKAGE}`);
}

/**
 * Make the project under `dir`: `mproc/` with every `.py` file of the stdlib
 * package (sub-packages included, `__pycache__` left out), renamed.
 *
 * @param dir An empty directory.
 * @returns The project's files.
 * @throws {Error} When python3 cannot say where its stdlib is.
 */
export async function buildProject(dir: string): Promise<Snapshot> {
  const source = await stdlibPackage();
  const files: Snapshot = new Map();
  for (const path of await listPython(source)) {
    files.set(`${PACKAGE}/${path}`, renamePackage(await Deno.readTextFile(`${source}/${path}`)));
  }
  await writeSnapshot(dir, files);
  return files;
}

/** The `.py` files under a folder, relative, sorted. */
async function listPython(folder: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${folder}/${prefix}`)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory && entry.name !== "__pycache__") {
      found.push(...await listPython(folder, `${path}/`));
    } else if (entry.isFile && entry.name.endsWith(".py")) found.push(path);
  }
  return found.sort();
}

/** Write every file of a snapshot under dir. */
async function writeSnapshot(dir: string, files: Snapshot): Promise<void> {
  for (const [path, text] of files) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
}

/**
 * Read every file under dir, leaving out dot-folders (a server's state) and
 * `__pycache__`.
 *
 * @param dir The project.
 * @returns Its files.
 */
export async function snapshot(dir: string): Promise<Snapshot> {
  const files: Snapshot = new Map();
  const walk = async (prefix: string): Promise<void> => {
    for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory && !entry.name.startsWith(".") && entry.name !== "__pycache__") {
        await walk(`${path}/`);
      } else if (entry.isFile) files.set(path, await Deno.readTextFile(`${dir}/${path}`));
    }
  };
  await walk("");
  return files;
}

/**
 * How two snapshots differ, in a few lines (empty when they are equal).
 *
 * @param expected What the task must leave.
 * @param actual What is on disk.
 * @returns One line per differing path, at most 8.
 */
export function snapshotDiff(expected: Snapshot, actual: Snapshot): string[] {
  const paths = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  const lines: string[] = [];
  for (const path of paths) {
    const want = expected.get(path);
    const got = actual.get(path);
    if (want === got) continue;
    if (want === undefined) lines.push(`${path}: should not exist`);
    else if (got === undefined) lines.push(`${path}: missing`);
    else lines.push(`${path}: ${firstDifference(want, got)}`);
  }
  return lines.length > 8 ? [...lines.slice(0, 8), `… ${lines.length - 8} more`] : lines;
}

/** Where two texts first differ, as a line number and both lines. */
function firstDifference(want: string, got: string): string {
  const a = want.split("\n");
  const b = got.split("\n");
  const at = a.findIndex((line, i) => line !== b[i]);
  const line = at === -1 ? a.length : at;
  return `line ${line + 1}: expected ${JSON.stringify(a[line])}, found ${JSON.stringify(b[line])}`;
}

/**
 * Ask the oracle (`bench/_workflow_oracle.py`, Python's `ast`/`tokenize`).
 *
 * @param command `defs`, `sites`, `rename` or `moved`.
 * @param dir The project.
 * @param args The command's arguments.
 * @returns Its JSON answer.
 * @throws {Error} When python3 fails.
 */
export async function oracle<T>(command: string, dir: string, args: string[]): Promise<T> {
  return JSON.parse(await run("python3", [ORACLE, command, dir, ...args])) as T;
}

const SMOKE = `
import sys, time
import ${PACKAGE} as mp
from ${PACKAGE} import util
if __name__ == "__main__":
    for method in ("spawn", "forkserver", "fork"):
        ctx = mp.get_context(method)
        with ctx.Pool(2) as pool:
            assert pool.map(abs, [-1, -2, -3]) == [1, 2, 3], method
            late = pool.apply_async(time.sleep, (2,))
            try:
                late.get(0.01)
                raise SystemExit("get() did not time out")
            except mp.TimeoutError as error:
                message = str(error)
        worker = ctx.Process(target=abs, args=(-1,))
        worker.start()
        worker.join()
        assert worker.exitcode == 0, (method, worker.exitcode)
    print(message)
    print(sorted(n for n in dir(util) if n.startswith("Final")))
`;

/**
 * Run the package for real: a pool and a process under spawn, forkserver and
 * fork, and a `get()` that times out.
 *
 * @param dir The project.
 * @returns The timeout's message and util's `Final*` names, as printed.
 * @throws {Error} When the package no longer works.
 */
export function smoke(dir: string): Promise<string> {
  return run("python3", ["-c", SMOKE], {
    cwd: dir,
    env: { PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: "1", PATH: Deno.env.get("PATH") ?? "" },
  });
}
