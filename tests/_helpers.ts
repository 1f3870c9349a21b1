/**
 * Test helpers: real temp directories and a real host.
 *
 * @module
 */

// The host and the security modules are loaded by the helpers that use them: most test files
// take only tempDir and textOf, and the host's modules cost each file a third of a CPU-second.
import type { Host } from "../host/host.ts";
import type { ToolContext, ToolResult } from "../tools/tool.ts";
import type { HostConfigInput } from "../host/config/config.ts";

/**
 * Whether this is `toolhost test --quick`, the edit-test loop's subset. The
 * tests that compare a tool with its reference over real code (CPython's
 * `ast` and `compile()` on the standard library, Universal Ctags and
 * `deno doc` on installed packages), flood a part with thousands of calls,
 * kill processes over and over, or wait for real time limits pass
 * `{ ignore: quickRun }`: the full run (and CI)
 * runs them, and the quick run's summary counts them as ignored.
 */
export const quickRun = Deno.env.get("TOOLHOST_TEST_QUICK") === "1";

/**
 * toolhost's CLI, `host/cli/main.ts`: what `bin/toolhost` runs with `-A` for every command but
 * `start` and `test`. (`start` runs the launcher with narrow flags; through this entry it runs
 * with `-A` too, and becomes the same scoped server.)
 */
export const CLI = new URL("../host/cli/main.ts", import.meta.url).pathname;

/**
 * The `deno run` arguments of a program of this checkout (the CLI, a fixture), with the packages
 * `bin/toolhost` installed taken as they are (`--node-modules-dir=manual`, as bin/toolhost and the
 * served process run; "auto" would check them again in each worker the program starts, about 1
 * CPU-second of a `doctor`).
 *
 * @param entry The program's path.
 * @param args Its arguments.
 * @param flags Deno's flags before the program (permissions first; the CLI's: `-A`).
 * @returns The arguments for `new Deno.Command(Deno.execPath(), { args })`.
 */
export function denoRun(
  entry: string,
  args: readonly string[],
  flags: readonly string[] = ["-A"],
): string[] {
  return ["run", "--node-modules-dir=manual", ...flags, entry, ...args];
}

/**
 * The `deno run` arguments of a toolhost command, as `bin/toolhost` runs it (without its
 * `--quiet`, so that Deno's own messages show in a failing test's output), with these permissions.
 *
 * @param args The command and its arguments (`["doctor", "--root", dir]`).
 * @param permissions Deno's permission flags (bin/toolhost's: `-A`).
 * @returns The arguments for `new Deno.Command(Deno.execPath(), { args })`.
 */
export function cliRun(args: readonly string[], permissions: readonly string[] = ["-A"]): string[] {
  return denoRun(CLI, args, permissions);
}

/** A temp directory removed on dispose. */
export interface TempDir extends AsyncDisposable {
  /** Its real absolute path. */
  readonly path: string;
}

/** Make a temp directory (real path) that `await using` removes. */
export async function tempDir(prefix = "toolhost-test-"): Promise<TempDir> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** Options for {@linkcode testHost}. */
export interface TestHostOptions {
  /** The roots. */
  roots: string[];
  /** A toolhost.json to write at the first root first. */
  config?: HostConfigInput;
  /** Use ripgrep: `off` (default for determinism), `auto`. */
  ripgrep?: string;
}

/** Start a real host (real workers) over temp roots; `await using` closes it. */
export async function testHost(options: TestHostOptions): Promise<Host> {
  if (options.config) {
    await Deno.writeTextFile(`${options.roots[0]}/toolhost.json`, JSON.stringify(options.config));
  }
  const { createHost } = await import("../host/host.ts");
  return await createHost({
    roots: options.roots,
    ripgrep: options.ripgrep ?? "off",
    logger: { log: () => {} },
  });
}

/** The text of a result's content blocks, joined. */
export function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/**
 * A file of an npm package installed for this project (under
 * `node_modules/.deno/<package>@<version>/node_modules/`), whatever its version.
 *
 * @param path The package name and the path in it, e.g. `tree-sitter-python/src/scanner.c`.
 * @returns Its absolute path, or `undefined` when no installed package has it.
 */
export function npmFile(path: string): string | undefined {
  const store = new URL("../node_modules/.deno/", import.meta.url).pathname;
  for (const dir of Deno.readDirSync(store)) {
    const candidate = `${store}${dir.name}/node_modules/${path}`;
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch {
      // not in this package
    }
  }
  return undefined;
}

/**
 * Whether a test that compares against an external program runs here. Under
 * CI always: `.ci/run` installs the program, so its absence fails the test.
 * Elsewhere only where the program is on PATH, so that `deno task test` on a
 * machine without it skips those tests instead of failing them, and says so
 * ({@linkcode missing}).
 *
 * @param program The program's name, as found on PATH (`rg`, `ctags`).
 * @returns False when the test is to be ignored here.
 */
export function canRun(program: string): boolean {
  const found = (Deno.env.get("PATH") ?? "").split(":").some((dir) => {
    try {
      return dir !== "" && Deno.statSync(`${dir}/${program}`).isFile;
    } catch {
      return false;
    }
  });
  return !missing(`${program} (not on PATH)`, found);
}

/**
 * Whether to skip a test for a missing prerequisite, said loudly. Under
 * `CI=true` never: `.ci/run` installs every prerequisite, so the test runs
 * and fails without it. Elsewhere a missing one is skipped, with a line on
 * stderr naming it (Deno's own report says only "ignored").
 *
 * @param what The prerequisite, as the line names it.
 * @param present Whether it is here.
 * @returns True when the test is to be skipped.
 */
export function missing(what: string, present: boolean): boolean {
  if (present || Deno.env.get("CI") === "true") return false;
  // deno-lint-ignore no-console
  console.error(`toolhost tests: ${what} is missing: the tests that need it are skipped here`);
  return true;
}

/**
 * A real tool context over a real root, with no worker: for unit tests of
 * code that tools call. Its `shared` values are kept, as a worker keeps them,
 * and start with the tree-sitter service a worker starts with (the declared grammars).
 *
 * @param root The root.
 * @returns The context.
 */
export async function toolContext(root: string): Promise<ToolContext> {
  const [{ resolvePolicy }, { Resolver }, { SafeFs }, { Anchor }, { TREE_SITTER_SERVICE }, {
    DeclaredTreeSitter,
  }] = await Promise.all([
    import("../security/policy.ts"),
    import("../security/resolver.ts"),
    import("../security/safe_fs.ts"),
    import("../security/anchored.ts"),
    import("../tools/_treesitter.ts"),
    import("../tools/declared_tree_sitter.ts"),
  ]);
  const policy = await resolvePolicy({ roots: [root] });
  const resolver = new Resolver(policy);
  // The parser with the grammars the families declare, as a worker hands it to its tools.
  const shared = new Map<string, unknown>([[TREE_SITTER_SERVICE, new DeclaredTreeSitter()]]);
  return {
    policy,
    resolver,
    fs: new SafeFs(resolver, new Anchor(policy.roots)),
    signal: new AbortController().signal,
    messageWaiting: () => false,
    progress: () => {},
    logger: { warn: () => {}, error: () => {} },
    binaries: {},
    shared<T>(key: string, make: () => T): T {
      if (!shared.has(key)) shared.set(key, make());
      return shared.get(key) as T;
    },
  };
}
