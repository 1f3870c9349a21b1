/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned
 * with its dependencies by `suite.lock`) run as a subprocess against a URL,
 * and its results read back from the JSON it writes for each scenario.
 *
 * @module
 */

/** The suite, as `deno run` names it. */
export const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
/** The spec revision whose server scenarios the test runs. */
export const SPEC = "2025-11-25";
const LOCK = new URL("./suite.lock", import.meta.url).pathname;
/** The longest a run of the suite may take. */
const RUN_TIMEOUT_MS = 10 * 60_000;

/** One check a scenario made, as the suite records it. */
export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  description?: string;
  errorMessage?: string;
}

/** What one run of the suite said. */
export interface SuiteRun {
  /** The suite's exit code. */
  code: number;
  /** Its stdout and stderr. */
  output: string;
  /** The checks of each scenario it ran, by scenario. */
  scenarios: Map<string, Check[]>;
}

/**
 * Run the suite's command in a directory of its own (not this project's, so
 * that it neither reads deno.json nor touches deno.lock), pinned by `suite.lock`.
 *
 * @param args The suite's arguments.
 * @returns Exit code and output.
 * @throws {Error} When it does not end within the time limit.
 */
export async function suite(args: string[]): Promise<{ code: number; output: string }> {
  const cwd = await Deno.makeTempDir({ prefix: "toolhost-conformance-" });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-config", `--lock=${LOCK}`, "--frozen", SUITE, ...args],
      cwd,
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: output.code, output: decode(output.stdout) + decode(output.stderr) };
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/**
 * The server scenarios the suite has for {@linkcode SPEC}, from its `list`.
 *
 * @returns Their names.
 * @throws {Error} When the list cannot be read.
 */
export async function serverScenarios(): Promise<string[]> {
  const { code, output } = await suite(["list", "--server", `--spec-version=${SPEC}`]);
  const names = [...output.matchAll(/^\s+- (\S+) \[[^\]]*\]$/gm)].map((match) => match[1]!);
  if (code !== 0 || names.length === 0) throw new Error(`Cannot list the scenarios:\n${output}`);
  return names;
}

/**
 * Run every server scenario for {@linkcode SPEC} against a URL.
 *
 * @param url The MCP endpoint.
 * @param expectedFailures An `--expected-failures` file, when the suite should judge by it.
 * @returns What the suite said, with each scenario's checks.
 */
export async function runServerSuite(url: string, expectedFailures?: string): Promise<SuiteRun> {
  const out = await Deno.makeTempDir({ prefix: "toolhost-conformance-results-" });
  try {
    const { code, output } = await suite([
      "server",
      `--url=${url}`,
      "--suite=all",
      `--spec-version=${SPEC}`,
      `--output-dir=${out}`,
      ...(expectedFailures ? [`--expected-failures=${expectedFailures}`] : []),
    ]);
    return { code, output, scenarios: await readResults(out) };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** The checks of each scenario, from `<dir>/server-<scenario>-<time>/checks.json`. */
async function readResults(dir: string): Promise<Map<string, Check[]>> {
  const scenarios = new Map<string, Check[]>();
  for await (const entry of Deno.readDir(dir)) {
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name)?.[1];
    if (!entry.isDirectory || name === undefined) continue;
    const checks = JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}/checks.json`));
    scenarios.set(name, checks);
  }
  return scenarios;
}

/**
 * The checks that make a scenario fail: failures and warnings (the suite's
 * own baseline counts a warning as a failure).
 *
 * @param checks A scenario's checks.
 * @returns The failing ones.
 */
export function failing(checks: readonly Check[]): Check[] {
  return checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
}

/**
 * Scenarios and their failing checks, one line each, for a failure message.
 *
 * @param run A run of the suite.
 * @param names The scenarios to describe.
 * @returns The lines.
 */
export function describe(run: SuiteRun, names: readonly string[]): string {
  return names.flatMap((name) => {
    const checks = run.scenarios.get(name);
    if (!checks) return [`  ${name}: did not run`];
    return failing(checks).map((check) =>
      `  ${name}: ${check.status} ${check.id}${
        check.errorMessage ? ` — ${check.errorMessage.slice(0, 300)}` : ""
      }`
    );
  }).join("\n");
}

/**
 * The scenario names an `--expected-failures` file lists under `server:`
 * (block-style YAML list, comments allowed: the file's own format).
 *
 * @param path The file.
 * @returns The names.
 * @throws {SyntaxError} When a line is neither a comment, `server:`, nor a list item under it.
 */
export async function expectedFailures(path: string): Promise<string[]> {
  const names: string[] = [];
  let inServer = false;
  for (const raw of (await Deno.readTextFile(path)).split("\n")) {
    const line = raw.replace(/#.*$/, "").trimEnd();
    if (line.trim() === "") continue;
    if (/^server:\s*(\[\s*\])?$/.test(line)) {
      inServer = true;
      continue;
    }
    const item = /^\s+-\s+(\S+)$/.exec(line);
    if (!inServer || !item) throw new SyntaxError(`Cannot read ${path}: unexpected line "${raw}"`);
    names.push(item[1]!);
  }
  return names;
}
