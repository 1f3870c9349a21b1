/**
 * `find_usages` and `rename_symbol` at the size of real projects (issue 32's
 * budgets), in the launch users run: the SDK's client over stdio to the
 * server started exactly as `toolhost mcp-config` prints it. The projects
 * are real Python a machine ships (`_scale_corpus.ts`): 2,000 files (the
 * standard library with its tests, topped up from the installed packages),
 * and ten such copies side by side, 20,000 files.
 *
 * Run: `deno run -A bench/scale_bench.ts [--sizes 2000,20000] [--calls N] [--no-pyright]`
 *
 * Per size, from a state directory emptied first:
 * - the first call with no index (it reads every Python file's words and
 *   parses the files that could name the symbol);
 * - warm calls (default 30): `find_usages` of `email.message.Message`, and
 *   `rename_symbol` of it with `dry_run`;
 * - after a restart, the index kept: the first call at once (it waits for
 *   the host to bring the index up to date), and the first call once the
 *   host has prepared it in the background (10 s after the start); then a
 *   class never asked before (`http.client.HTTPConnection`), and on 2,000
 *   files a common name never asked (`shlex.split`: a fifth of the files
 *   spell `split`, and each is parsed);
 * - the server's memory (RSS of the process and its workers) after the warm calls;
 * - pyright 1.1.414's `textDocument/rename` of the same symbol, warm (after
 *   one rename and the references it needs), on the 2,000 files only
 *   (its whole-workspace analysis of 20,000 files is not what users run).
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { connectStdio, resultText, type StdioSession } from "../tests/_mcp.ts";
import { quantile, treeRss } from "./_measure.ts";
import { Pyright } from "./_py_oracle.ts";
import { COPY_FILES, scaleProject } from "./_scale_corpus.ts";

const arg = (name: string, fallback: string) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1]! : fallback;
};
const SIZES = arg("--sizes", "2000,20000").split(",").map(Number);
const CALLS = Number(arg("--calls", "30"));
const PYRIGHT = !Deno.args.includes("--no-pyright");
const DATA = new URL(".data/scale/", import.meta.url).pathname;
/** How long the bench leaves a restarted host to prepare its index before the first call. */
const PREPARE_MS = 10_000;

/** The class the budgets are measured on; another never asked before a restart; a common name. */
const MESSAGE = { file: "lib/email/message.py", name: "Message", newName: "MailMessage" };
const CONNECTION = { file: "lib/http/client.py", name: "HTTPConnection" };
const SPLIT = { file: "lib/shlex.py", name: "split" };

/** One size's numbers, in ms (and MB). */
type Row = Record<string, number | string>;

async function timed(session: StdioSession, tool: string, args: Record<string, unknown>) {
  const start = performance.now();
  const result = await session.call(tool, args);
  const took = performance.now() - start;
  if (result.isError) throw new Error(`${tool}: ${resultText(result)}`);
  return took;
}

/** The path of a file in the first copy of a project. */
function inCopy(files: number, path: string): string {
  return files > COPY_FILES ? `copy0/${path}` : path;
}

async function measure(size: number): Promise<Row> {
  const copies = Math.max(1, Math.round(size / COPY_FILES));
  const project = await scaleProject(`${DATA}p${copies * 2}k`, copies);
  await Deno.remove(`${project.root}/.toolhost`, { recursive: true }).catch(() => {});
  const message = { path: inCopy(project.files, MESSAGE.file), name: MESSAGE.name };
  const rename = { ...message, new_name: MESSAGE.newName, dry_run: true, include_unsure: "none" };
  const row: Row = { files: project.files };
  {
    await using session = await connectStdio([project.root]);
    row.cold = await timed(session, "find_usages", message);
    const warm: number[] = [];
    for (let i = 0; i < CALLS; i++) warm.push(await timed(session, "find_usages", message));
    const dry: number[] = [];
    for (let i = 0; i < CALLS; i++) dry.push(await timed(session, "rename_symbol", rename));
    Object.assign(row, summary("warm", warm), summary("dry run", dry));
    row["RSS MB"] = Math.round(treeRss(session.pid!) / 2 ** 20);
  }
  {
    await using session = await connectStdio([project.root]);
    row["restart: first call at once"] = await timed(session, "find_usages", message);
  }
  {
    await using session = await connectStdio([project.root]);
    // The host prepares the index in the background once started: give it time to.
    await new Promise((resolve) => setTimeout(resolve, PREPARE_MS));
    row["restart: first call, prepared"] = await timed(session, "find_usages", message);
    row["restart: another class never asked"] = await timed(session, "find_usages", {
      path: inCopy(project.files, CONNECTION.file),
      name: CONNECTION.name,
    });
    // A fifth of the files spell `split`: each is parsed (past a minute on 20,000 files).
    if (project.files <= COPY_FILES) {
      row["restart: a common name never asked"] = await timed(session, "find_usages", {
        path: SPLIT.file,
        name: SPLIT.name,
      });
    }
  }
  if (PYRIGHT && project.files <= COPY_FILES) {
    row["pyright rename"] = await pyrightRename(project.root);
  }
  return row;
}

function summary(what: string, values: readonly number[]): Row {
  return { [`${what} median`]: quantile(values, 0.5), [`${what} p90`]: quantile(values, 0.9) };
}

/** Pyright's warm rename of the same class, in ms (median of the calls). */
async function pyrightRename(root: string): Promise<number> {
  const text = await Deno.readTextFile(`${root}/${MESSAGE.file}`);
  const at = /^class (Message)\b/m.exec(text)!;
  const line = text.slice(0, at.index).split("\n").length - 1;
  await using pyright = await Pyright.start(root);
  await pyright.open(MESSAGE.file);
  const params = {
    textDocument: { uri: pyright.uri(MESSAGE.file) },
    position: { line, character: "class ".length },
    newName: MESSAGE.newName,
  };
  await pyright.request("textDocument/rename", params);
  const times: number[] = [];
  for (let i = 0; i < Math.min(CALLS, 10); i++) {
    const start = performance.now();
    await pyright.request("textDocument/rename", params);
    times.push(performance.now() - start);
  }
  return quantile(times, 0.5);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size));
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  console.log(`find_usages of email.message.Message; ${CALLS} warm calls each; ms`);
  console.log(`| | ${rows.map((row) => `${row.files} files`).join(" | ")} |`);
  console.log(`| --- | ${rows.map(() => "---").join(" | ")} |`);
  for (const key of keys.filter((key) => key !== "files")) {
    const cells = rows.map((row) =>
      typeof row[key] === "number" ? (row[key] as number).toFixed(0) : row[key] ?? "—"
    );
    console.log(`| ${key} | ${cells.join(" | ")} |`);
  }
}

if (import.meta.main) await main();
