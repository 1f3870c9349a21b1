/**
 * Python's standard library as test material, and Python's own `ast` module
 * as the reference (fixtures/python/ast_reference.py, run with python3).
 *
 * @module
 */

/** The python3 on PATH, as these tests run it. */
export interface Python {
  /** Its interpreter's own path (`sys.executable`). */
  executable: string;
  /** Its standard library's directory. */
  stdlib: string;
}

let found: Promise<Python> | undefined;

/**
 * The python3 on PATH, asked once per test process. Later runs start its
 * executable directly: PATH's `python3` can be a version manager's shim (a
 * shell script that costs more CPU than the short runs these tests make).
 */
export function python(): Promise<Python> {
  return found ??= (async () => {
    const out = await new Deno.Command("python3", {
      args: [
        "-c",
        "import sys,sysconfig;print(sys.executable);print(sysconfig.get_paths()['stdlib'])",
      ],
      stdout: "piped",
    }).output();
    if (!out.success) throw new Error("python3 is needed for these tests");
    const [executable, stdlib] = new TextDecoder().decode(out.stdout).trim().split("\n");
    return { executable: executable!, stdlib: stdlib! };
  })();
}

/** The stdlib directory of the python3 on PATH. */
export async function stdlibDir(): Promise<string> {
  return (await python()).stdlib;
}

/** The modules the agreement tests use (relative to the stdlib), 40+ of them, large and small. */
export const SAMPLE: readonly string[] = [
  "argparse.py",
  "dataclasses.py",
  "typing.py",
  "enum.py",
  "functools.py",
  "inspect.py",
  "pathlib.py",
  "contextlib.py",
  "textwrap.py",
  "abc.py",
  "collections/__init__.py",
  "json/__init__.py",
  "json/decoder.py",
  "json/encoder.py",
  "email/message.py",
  "email/utils.py",
  "http/client.py",
  "http/server.py",
  "logging/__init__.py",
  "unittest/case.py",
  "unittest/mock.py",
  "concurrent/futures/_base.py",
  "importlib/_bootstrap.py",
  "tomllib/_parser.py",
  "re/_parser.py",
  "subprocess.py",
  "shutil.py",
  "tempfile.py",
  "zipfile.py",
  "tarfile.py",
  "statistics.py",
  "fractions.py",
  "ast.py",
  "dis.py",
  "pprint.py",
  "string.py",
  "socketserver.py",
  "threading.py",
  "selectors.py",
  "configparser.py",
];

/** Every asyncio module, added to the sample. */
export async function asyncioModules(stdlib: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${stdlib}/asyncio`)) {
    if (entry.isFile && entry.name.endsWith(".py")) names.push(`asyncio/${entry.name}`);
  }
  return names.sort();
}

/** One symbol as the reference has it. */
export interface RefSymbol {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  children: RefSymbol[];
}

/** The reference's view of one file. */
export interface Reference {
  path: string;
  valid: boolean;
  error: { line: number; message: string } | null;
  symbols?: RefSymbol[];
  texts?: Record<string, string>;
}

const SCRIPT = new URL("../../../fixtures/python/ast_reference.py", import.meta.url).pathname;

/**
 * Ask Python about some files.
 *
 * @param paths Absolute paths.
 * @returns One reference per path.
 */
export async function reference(paths: readonly string[]): Promise<Reference[]> {
  const out = await new Deno.Command((await python()).executable, {
    args: [SCRIPT, ...paths],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** Copy stdlib modules into a root, keeping their relative paths. */
export async function copyModules(
  stdlib: string,
  modules: readonly string[],
  root: string,
): Promise<void> {
  for (const module of modules) {
    const target = `${root}/${module}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${stdlib}/${module}`, target);
  }
}

/**
 * A reference outline as an outline tool gives it: every entry names its file.
 *
 * @param symbols The reference's symbols.
 * @param path The file, as the tools show it.
 * @returns The same outline, with `path` in every entry.
 */
export function withPath(
  symbols: readonly RefSymbol[],
  path: string,
): Array<RefSymbol & { path: string }> {
  return symbols.map((s) => ({
    kind: s.kind,
    name: s.name,
    path,
    start_line: s.start_line,
    end_line: s.end_line,
    children: withPath(s.children, path),
  }));
}

/** Every qualified name in a reference outline, with how often it occurs. */
export function qualifiedNames(symbols: readonly RefSymbol[], prefix = ""): Map<string, number> {
  const counts = new Map<string, number>();
  const visit = (list: readonly RefSymbol[], at: string) => {
    for (const s of list) {
      const q = at + s.name;
      counts.set(q, (counts.get(q) ?? 0) + 1);
      visit(s.children, q + ".");
    }
  };
  visit(symbols, prefix);
  return counts;
}
