/**
 * Does the suite fail when the product is wrong? Plants known one-line bugs,
 * one at a time, in a scratch copy of this checkout, runs the tests that
 * should catch each, and prints which tests failed. A planted bug that no test
 * catches fails this script, and so does a bug that can no longer be planted
 * (the line it changes has moved: update its `find`).
 *
 * The tests are first run on the copy as it is: a test that fails there
 * already is reported and never counts as catching a bug.
 *
 * ```sh
 * deno run --allow-all tests/mutants/plant_bugs.ts          # every bug
 * deno run --allow-all tests/mutants/plant_bugs.ts sibling  # the bugs whose name holds "sibling"
 * ```
 *
 * @module
 */

/** One planted bug: a single replacement in one file, and the tests that should catch it. */
interface Mutant {
  /** What the bug is, in a few words. */
  name: string;
  /** The file, relative to the checkout. */
  file: string;
  /** The text replaced: it must occur exactly once. */
  find: string;
  /** What replaces it. */
  replace: string;
  /** Test files that should catch it, relative to the checkout. */
  tests: string[];
}

const REPLY_TESTS = ["tests/tools/reply_bound_test.ts", "tests/host/hostile_requests_test.ts"];
const RESOLVER_TESTS = [
  "tests/security/resolver_test.ts",
  "tests/security/boundaries_test.ts",
  "tests/security/escapes_test.ts",
];
const PROTECTED_TESTS = [
  "tests/security/resolver_test.ts",
  "tests/security/git_dir_test.ts",
  "tests/security/protected_test.ts",
];

const MUTANTS: readonly Mutant[] = [
  {
    name: "reply bound with 1 KiB of slack",
    file: "tools/reply_bound.ts",
    find: "if (size <= maxBytes) return result;",
    replace: "if (size <= maxBytes + 1024) return result;",
    tests: REPLY_TESTS,
  },
  {
    name: "reply bound counts characters instead of bytes",
    file: "tools/reply_bound.ts",
    find: "return ENCODER.encode(text).length;",
    replace: "return text.length;",
    tests: REPLY_TESTS,
  },
  {
    name: "resolver's `..` check removed (the lexical containment before the disk is asked)",
    file: "security/resolver.ts",
    find: "if (!where) throw this.#outside(raw);\n    const glob = this.hidden(path);",
    replace: "const glob = this.hidden(path);",
    tests: RESOLVER_TESTS,
  },
  {
    name: "resolver's sibling-prefix check removed (root compared without its separator)",
    file: "security/resolver.ts",
    find: "if (path.startsWith(prefix)) return { root, relative: path.slice(prefix.length) };",
    replace: "if (path.startsWith(root)) return { root, relative: path.slice(prefix.length) };",
    tests: RESOLVER_TESTS,
  },
  {
    name: "protected names compared case-sensitively",
    file: "security/protected.ts",
    find: '(?:/.*)?"}$`, "iu");',
    replace: '(?:/.*)?"}$`, "u");',
    tests: PROTECTED_TESTS,
  },
];

/** What is not copied: git's own data, and scratch output. */
const SKIP = new Set([".git", ".toolhost", ".scratch", "test-artifacts"]);

const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** The longest a test run may take (the slowest set takes about 10 minutes on 2 busy cores). */
const RUN_LIMIT_MS = 40 * 60_000;

/** A test run's failures, as `file: test name` (steps as `test ... step`). */
interface Run {
  failed: Set<string>;
  /** The run's summary line, or why there is none. */
  summary: string;
  /** It failed before any test could (a type error, a missing file, a hang): it catches nothing. */
  broken: boolean;
}

function say(line: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));
}

/** Copy the working tree (uncommitted changes included) to a scratch directory. */
async function copyCheckout(): Promise<string> {
  const scratch = await Deno.makeTempDir({ prefix: "toolhost-mutants-" });
  const entries = [...Deno.readDirSync(REPO)].filter((entry) => !SKIP.has(entry.name))
    .map((entry) => `${REPO}/${entry.name}`);
  const copy = await new Deno.Command("cp", { args: ["-a", ...entries, scratch] }).output();
  // Files that vanished while they were copied (Deno's lock files under node_modules) do not matter.
  const errors = new TextDecoder().decode(copy.stderr).split("\n")
    .filter((line) => line !== "" && !/cannot stat .*: No such file or directory$/.test(line));
  if (!copy.success && errors.length > 0) {
    throw new Error(`Cannot copy the checkout: ${errors.join("; ")}`);
  }
  // As `deno task test` does first, then the tools' modules loaded once in one thread. Seen on
  // Deno 2.9.6: at a new path, a run whose first load of the npm packages was a tool worker's
  // (boundaries_test.ts alone) waited for good, its main thread spinning on a lock of Deno's
  // cache databases; the whole suite loads them in its main thread first.
  for (
    const args of [["install", "--quiet"], ["eval", `await import("${scratch}/tools/mod.ts")`]]
  ) {
    const setup = await new Deno.Command(Deno.execPath(), { args, cwd: scratch }).output();
    if (!setup.success) {
      throw new Error(`Cannot set up the copy: ${new TextDecoder().decode(setup.stderr)}`);
    }
  }
  return scratch;
}

/** The failures listed under deno test's FAILURES heading. */
function failuresOf(output: string): Set<string> {
  const failed = new Set<string>();
  const at = output.lastIndexOf("\n FAILURES \n");
  if (at < 0) return failed;
  for (const line of output.slice(at).split("\n")) {
    const match = line.match(/^(.+) => \.\/(\S+?):\d+:\d+$/);
    if (match) failed.add(`${match[2]}: ${match[1]}`);
  }
  return failed;
}

async function runTests(dir: string, files: readonly string[]): Promise<Run> {
  // A run that hangs (a planted bug can make a test wait for good) is stopped and says so.
  const limit = AbortSignal.timeout(RUN_LIMIT_MS);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--unstable-worker-options", ...files],
    cwd: dir,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    signal: limit,
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  const stopped = limit.aborted ? `stopped after ${RUN_LIMIT_MS / 60_000} minutes, ` : "";
  const summary = text.match(/^(ok|FAILED) \| \d+ passed.*$/m)?.[0] ??
    `no summary (${stopped}exit ${output.code}): ${text.trim().split("\n").slice(-5).join(" / ")}`;
  const failed = failuresOf(text);
  return { failed, summary, broken: !output.success && failed.size === 0 };
}

/** Plant one bug in the copy; returns the file's original text. */
async function plant(dir: string, mutant: Mutant): Promise<string> {
  const path = `${dir}/${mutant.file}`;
  const original = await Deno.readTextFile(path);
  const count = original.split(mutant.find).length - 1;
  if (count !== 1) {
    throw new Error(
      `Cannot plant "${mutant.name}": ${
        JSON.stringify(mutant.find)
      } occurs ${count} times in ${mutant.file}, not once`,
    );
  }
  // A function, not the string: `$` sequences in the replacement stay as they are.
  await Deno.writeTextFile(path, original.replace(mutant.find, () => mutant.replace));
  return original;
}

async function main(filters: readonly string[]): Promise<number> {
  const chosen = MUTANTS.filter((mutant) =>
    filters.length === 0 || filters.some((filter) => mutant.name.includes(filter))
  );
  if (chosen.length === 0) throw new RangeError(`No planted bug matches ${filters.join(", ")}`);
  const dir = await copyCheckout();
  say(`plant_bugs: a copy of ${REPO} in ${dir}`);
  try {
    const files = [...new Set(chosen.flatMap((mutant) => mutant.tests))];
    const baseline = await runTests(dir, files);
    say(`baseline (nothing planted): ${baseline.summary}`);
    if (baseline.broken) throw new Error("The tests do not run on the copy as it is");
    for (const failure of baseline.failed) say(`  already failing, never counted: ${failure}`);
    const missed: string[] = [];
    for (const mutant of chosen) {
      const original = await plant(dir, mutant);
      let run: Run;
      try {
        run = await runTests(dir, mutant.tests);
      } finally {
        await Deno.writeTextFile(`${dir}/${mutant.file}`, original);
      }
      const caught = [...run.failed].filter((failure) => !baseline.failed.has(failure));
      say(`\nbug: ${mutant.name} (${mutant.file})`);
      say(`  ${run.summary}`);
      if (run.broken) say("  NOT CAUGHT: the run failed before any test could catch it");
      else if (caught.length === 0) say("  NOT CAUGHT by any test");
      if (caught.length === 0) missed.push(mutant.name);
      for (const failure of caught) say(`  caught by ${failure}`);
    }
    say(
      missed.length === 0
        ? `\nplant_bugs: all ${chosen.length} planted bugs were caught`
        : `\nplant_bugs: ${missed.length} of ${chosen.length} planted bugs were not caught: ${
          missed.join("; ")
        }`,
    );
    return missed.length === 0 ? 0 : 1;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
