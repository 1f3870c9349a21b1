/**
 * The suite's runner: what `bin/toolhost test` runs (the README's second
 * command, and `.ci/run`'s). It runs the test files in parallel, and ends
 * with the ten slowest files, so that where the time goes is seen at every
 * run.
 *
 *   bin/toolhost test                 every test file
 *   bin/toolhost test --quick         the unit tests: no file that starts toolhost as a client
 *                                     does, a browser or the conformance suite; and no test
 *                                     that compares a tool with its reference over real code,
 *                                     kills processes over and over or waits for a time limit
 *   bin/toolhost test FILE|DIR ...    those files
 *   bin/toolhost test ... -- ARGS     ARGS go to `deno test` (e.g. `--filter resolver`)
 *
 * Without `--quick` the files are type-checked beside the run, which fails
 * if the check does. `--jobs N` sets how many files run at once (default: `DENO_JOBS`, else
 * the cores: more at once made tests whose servers answer within a time limit fail under load).
 * Files that mostly wait (`WAITING`: downloads) run in a `deno test` of their own beside those
 * jobs, and a last line sums both runs' counts.
 * `TOOLHOST_TEST_FILES` (paths separated by spaces) narrows "every test
 * file" to those: the test that runs the README's commands in a fresh clone
 * uses it, so that the suite does not run itself.
 *
 * @module
 */

import { parseArgs } from "node:util";

const REPO = new URL("../", import.meta.url);
const TESTS = new URL("tests/", REPO);

/**
 * What makes a test file end-to-end: it starts toolhost as users launch it (`tests/_mcp.ts`,
 * `bin/toolhost`), a browser, or the conformance suite — directly or through a tests/ helper.
 */
const END_TO_END = [
  /from "[^"]*\/_mcp\.ts"/,
  /bin\/toolhost/,
  /from "puppeteer-core"/,
  /tests\/conformance\//,
];

/** How many slow files the end of a run names. */
const SLOWEST = 10;

/** Say a line on stderr (the test output is deno test's own, on stdout). */
function say(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
}

async function main(): Promise<number> {
  const dashes = Deno.args.indexOf("--");
  const own = dashes < 0 ? Deno.args : Deno.args.slice(0, dashes);
  const passed = dashes < 0 ? [] : Deno.args.slice(dashes + 1);
  const { values, positionals } = parseArgs({
    args: own,
    options: { quick: { type: "boolean" }, jobs: { type: "string" } },
    allowPositionals: true,
  });
  const chosen = positionals.length > 0
    ? positionals
    : (Deno.env.get("TOOLHOST_TEST_FILES")?.split(" ").filter(Boolean) ?? []);
  let files = chosen.length > 0 ? await testFiles(chosen) : await testFiles(["tests/"]);
  if (values.quick) files = await unitTests(files);
  files = await largestFirst(files);
  if (files.length === 0) {
    say("toolhost test: no test file matches");
    return 1;
  }
  const jobs = values.jobs ?? Deno.env.get("DENO_JOBS") ??
    String(navigator.hardwareConcurrency);
  if (!/^[1-9][0-9]*$/.test(jobs)) {
    say(`toolhost test: --jobs wants a positive whole number, not "${jobs}"`);
    return 1;
  }
  // The type check runs beside the tests, not before them (deno test would check first, on one
  // core); --quick leaves it to `deno task check`.
  const checked = values.quick ? Promise.resolve(true) : typeCheck(files);
  // The quick run leaves out the tests that pass `{ ignore: quickRun }` (tests/_helpers.ts).
  const env = { DENO_JOBS: jobs, TOOLHOST_TEST_QUICK: values.quick ? "1" : "0" };
  const waiting = files.filter((file) => WAITING.has(file));
  const busy = files.filter((file) => !WAITING.has(file));
  const runs = waiting.length > 0 && busy.length > 0
    ? await Promise.all([
      runDenoTest(busy, passed, env, "piped"),
      runDenoTest(waiting, passed, { ...env, DENO_JOBS: "1" }, "piped"),
    ])
    : [await runDenoTest(files, passed, env, "inherit")];
  if (runs.length > 1) say(combinedSummary(runs.map((run) => run.summary)));
  printSlowest(runs.map((run) => run.junit).join("\n"));
  const code = runs.find((run) => run.code !== 0)?.code ?? 0;
  if (!(await checked)) return code || 1;
  return code;
}

/**
 * Test files that spend most of their time waiting, not computing (first_commands_test downloads
 * Deno and every package into a fresh HOME: 15 CPU-s in 54 s alone). They run in a `deno test`
 * of their own beside the others, so that they do not hold one of the job slots (a core) while
 * they wait.
 */
const WAITING = new Set(["tests/host/cli/first_commands_test.ts"]);

/** One `deno test` run: its exit code, its JUnit report, and its summary line (piped runs). */
interface TestRun {
  code: number;
  junit: string;
  summary: string | undefined;
}

/**
 * Run `deno test` on some files. A piped run's output is passed on line by line (so that two
 * runs' lines never interleave within a line), its summary line kept.
 */
async function runDenoTest(
  files: readonly string[],
  passed: readonly string[],
  env: Record<string, string>,
  output: "inherit" | "piped",
): Promise<TestRun> {
  const report = await Deno.makeTempFile({ prefix: "toolhost-junit-", suffix: ".xml" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "--quiet",
        "--no-check",
        // bin/toolhost installed the packages: "auto" checks every package again in each test
        // module's isolate and each in-process tool worker (about a fifth of py_tools_test's CPU).
        "--node-modules-dir=manual",
        "--allow-all",
        "--unstable-worker-options",
        "--parallel",
        `--junit-path=${report}`,
        ...passed,
        ...files,
      ],
      cwd: REPO,
      env,
      stdin: "null",
      stdout: output,
    }).spawn();
    const summary = output === "piped" ? await passLines(child.stdout) : undefined;
    const { code } = await child.status;
    return { code, junit: await Deno.readTextFile(report).catch(() => ""), summary };
  } finally {
    await Deno.remove(report).catch(() => {});
  }
}

/** Write a stream's lines to stdout as they come; the last deno test summary line among them. */
async function passLines(stream: ReadableStream<Uint8Array>): Promise<string | undefined> {
  let summary: string | undefined;
  let rest = "";
  const encoder = new TextEncoder();
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (SUMMARY.test(plain(line))) summary = plain(line);
      await Deno.stdout.write(encoder.encode(`${line}\n`));
    }
  }
  if (rest !== "") await Deno.stdout.write(encoder.encode(rest));
  return summary;
}

/** deno test's summary line: `ok | 5 passed (3 steps) | 0 failed | 1 ignored (2s)`. */
const SUMMARY =
  /^(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \| (\d+) ignored)?/;

/** A line without its colours. */
function plain(line: string): string {
  // deno-lint-ignore no-control-regex
  return line.replace(/\x1b\[[0-9;]*m/g, "");
}

/**
 * The runs' summaries as one line of deno test's shape (`.ci/run` reads the last such line); a
 * run that printed none (it crashed) counts as one failure.
 */
function combinedSummary(summaries: ReadonlyArray<string | undefined>): string {
  const sum = { passed: 0, steps: 0, failed: 0, ignored: 0 };
  for (const summary of summaries) {
    const match = summary === undefined ? null : SUMMARY.exec(summary);
    if (!match) {
      sum.failed++;
      continue;
    }
    sum.passed += Number(match[1]);
    sum.steps += Number(match[2] ?? 0);
    sum.failed += Number(match[3]);
    sum.ignored += Number(match[4] ?? 0);
  }
  return `\n${
    sum.failed > 0 ? "FAILED" : "ok"
  } | ${sum.passed} passed (${sum.steps} steps) | ${sum.failed} failed | ${sum.ignored} ignored (all runs)`;
}

/** Type-check the test files (and what they import); its output is shown only when it fails. */
async function typeCheck(files: readonly string[]): Promise<boolean> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", ...files],
    cwd: REPO,
    stdin: "null",
  }).output();
  if (output.success) return true;
  say("\ntoolhost test: the type check failed:");
  await Deno.stderr.write(output.stderr);
  await Deno.stderr.write(output.stdout);
  return false;
}

/** The `*_test.ts` files at or under the given paths (relative to the checkout), sorted. */
async function testFiles(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const info = await Deno.stat(new URL(path, REPO));
    if (info.isFile) {
      found.push(path);
      return;
    }
    for await (const entry of Deno.readDir(new URL(path, REPO))) {
      const child = `${path.replace(/\/$/, "")}/${entry.name}`;
      if (entry.isDirectory) await walk(child);
      else if (entry.isFile && child.endsWith("_test.ts")) found.push(child);
    }
  };
  for (const path of paths) {
    const relative = path.replace(/^\.\//, "");
    try {
      await walk(relative);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      say(`toolhost test: no such test file or directory: ${relative}`);
    }
  }
  return [...new Set(found)].sort();
}

/**
 * The files, the largest first. deno test starts them in the order given, as many at once as
 * `DENO_JOBS`: a long file started last keeps one core busy alone at the end, and a file's size
 * tells its length well enough (the quick run took 81 s in name order, 72 s in this one).
 */
async function largestFirst(files: readonly string[]): Promise<string[]> {
  const sizes = new Map<string, number>();
  for (const file of files) sizes.set(file, (await Deno.stat(new URL(file, REPO))).size);
  return [...files].sort((a, b) => sizes.get(b)! - sizes.get(a)! || a.localeCompare(b));
}

/** The files among these that are unit tests: none of {@linkcode END_TO_END} within reach. */
async function unitTests(files: readonly string[]): Promise<string[]> {
  const texts = new Map<string, string>();
  const reaches = async (path: string, seen: Set<string>): Promise<boolean> => {
    if (seen.has(path)) return false;
    seen.add(path);
    let text = texts.get(path);
    if (text === undefined) {
      text = await Deno.readTextFile(new URL(path, REPO)).catch(() => "");
      texts.set(path, text);
    }
    if (END_TO_END.some((pattern) => pattern.test(`${path}\n${text}`))) return true;
    for (const match of text.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)) {
      const next = new URL(match[1]!, new URL(path, REPO)).href;
      if (next.startsWith(TESTS.href) && (await reaches(next.slice(REPO.href.length), seen))) {
        return true;
      }
    }
    return false;
  };
  const unit: string[] = [];
  for (const file of files) if (!(await reaches(file, new Set()))) unit.push(file);
  return unit;
}

/** The ten slowest files of a JUnit report: each file's tests' times summed (steps are inside them). */
function printSlowest(junit: string): void {
  const cases = [
    ...junit.matchAll(/<testcase name="([^"]*)" classname="([^"]*)" time="([0-9.]+)"/g),
  ]
    .map(([, name, file, seconds]) => ({ name: name!, file: file!, seconds: Number(seconds) }));
  const names = new Set(cases.map((each) => `${each.file}\n${each.name}`));
  // A step is named "test > step": its time is already in its test's.
  const isStep = (each: { name: string; file: string }) =>
    each.name.split(" &gt; ").some((_, i, parts) =>
      i > 0 && names.has(`${each.file}\n${parts.slice(0, i).join(" &gt; ")}`)
    );
  const byFile = new Map<string, number>();
  for (const each of cases) {
    if (!isStep(each)) byFile.set(each.file, (byFile.get(each.file) ?? 0) + each.seconds);
  }
  if (byFile.size === 0) return;
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  say(`\nThe ${slowest.length} slowest test files (their tests' times summed):`);
  for (const [file, seconds] of slowest) {
    say(`${seconds.toFixed(1).padStart(8)} s  ${file.replace(/^\.\//, "")}`);
  }
}

if (import.meta.main) Deno.exit(await main());
