/**
 * Speed and memory of `py_get_code_outline` through the whole host: a real
 * MCP client (the SDK's) talking over stdio to the server started exactly as
 * `toolhost mcp-config` prints it (scoped permissions, V8 settings), on
 * copies of python3's standard library (made under `bench/.data/` when
 * missing).
 *
 * Run: `deno run -A bench/python_bench.ts [--files N] [--runs N]` (the script; the server it
 * measures is started exactly as `mcp-config` prints it)
 *
 * Measures:
 * - outline of `argparse.py` (≈2,600 lines), first parse (a fresh copy each
 *   run, so that no worker has its tree) and cached (the same path again);
 * - outlining N (default 1,500) standard-library files in one pass: one
 *   directory call (`py_get_code_outline` on the folder, `limit: N`,
 *   continued at `next_offset` since a reply stops at the output limit),
 *   the directory in pages of 100 files one at a time and two at a time (one
 *   per tool worker), and for comparison one call per file, sequential and 4
 *   in flight;
 * - the host's memory: the RSS of the server process and all its
 *   descendants, from /proc, sampled every 20 ms throughout.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { mcpConfigFor } from "../tests/_mcp.ts";
import { treeRss } from "./_measure.ts";

const HERE = new URL(".", import.meta.url).pathname;
const TREE = `${HERE}.data/python_bench`;
const arg = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
};
const FILES = arg("--files", 1500);
const RUNS = arg("--runs", 20);

async function stdlib(): Promise<string> {
  const out = await new Deno.Command("python3", {
    args: ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** Every .py under a directory (no site-packages), sorted. */
async function pythonFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  const entries = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) entries.push(entry);
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory && entry.name !== "site-packages" && entry.name !== "__pycache__") {
      out.push(...await pythonFiles(dir, rel));
    } else if (entry.isFile && entry.name.endsWith(".py")) out.push(rel);
  }
  return out;
}

/** Copy the first `count` stdlib modules under `TREE/lib`, and argparse copies under `TREE/argparse`. */
async function ensureTree(): Promise<{ files: string[]; bytes: number }> {
  const source = await stdlib();
  const files = (await pythonFiles(source)).slice(0, FILES);
  let bytes = 0;
  for (const rel of files) {
    const dest = `${TREE}/lib/${rel}`;
    await Deno.mkdir(dest.slice(0, dest.lastIndexOf("/")), { recursive: true });
    const have = await Deno.stat(dest).catch(() => undefined);
    const want = await Deno.stat(`${source}/${rel}`);
    if (!have || have.size !== want.size) await Deno.copyFile(`${source}/${rel}`, dest);
    bytes += want.size;
  }
  await Deno.mkdir(`${TREE}/argparse`, { recursive: true });
  for (let i = 0; i <= RUNS; i++) {
    await Deno.copyFile(`${source}/argparse.py`, `${TREE}/argparse/argparse_${i}.py`);
  }
  return { files, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Outline the files `[from, to)` of the directory in pages of at most 100,
 * each going on where the last reply stopped (a reply also stops at the
 * output limit). Every file is outlined exactly once.
 *
 * @returns How many calls it took.
 */
async function pages(client: Client, from: number, to: number): Promise<number> {
  let calls = 0;
  for (let offset = from; offset < to; calls++) {
    const result = await client.callTool({
      name: "py_get_code_outline",
      arguments: { path: "lib", limit: Math.min(100, to - offset), offset },
    });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    const data = result.structuredContent as { files: unknown[]; next_offset?: number };
    offset = data.next_offset ?? to;
  }
  return calls;
}

async function outline(client: Client, args: Record<string, unknown>): Promise<number> {
  const start = performance.now();
  const result = await client.callTool({ name: "py_get_code_outline", arguments: args });
  const took = performance.now() - start;
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return took;
}

async function main(): Promise<void> {
  const { files, bytes } = await ensureTree();
  const served = await mcpConfigFor([TREE]);
  const transport = new StdioClientTransport({
    command: served.command,
    args: served.args,
    cwd: "/",
    env: { PATH: Deno.env.get("PATH") ?? "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "python-bench", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid!;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(pid))), 20);
  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} ${(treeRss(pid) / 2 ** 20).toFixed(0)} MB`);
  try {
    mark("started");
    // Warm both workers up (grammar loaded, JIT warm) on other files.
    for (let i = 0; i < 20; i++) await outline(client, { path: `lib/${files[i % files.length]}` });
    const first: number[] = [];
    for (let i = 1; i <= RUNS; i++) {
      first.push(await outline(client, { path: `argparse/argparse_${i}.py` }));
    }
    const cached: number[] = [];
    for (let i = 0; i < 10; i++) await outline(client, { path: "argparse/argparse_0.py" });
    for (let i = 0; i < RUNS * 10; i++) {
      cached.push(await outline(client, { path: "argparse/argparse_0.py" }));
    }
    const lines = (await Deno.readTextFile(`${TREE}/argparse/argparse_0.py`)).split("\n").length;

    mark("after argparse");
    const mb = bytes / 1e6;
    let start = performance.now();
    const pageCalls = await pages(client, 0, files.length);
    const paged = (performance.now() - start) / 1000;
    mark("after the paged pass");

    // The same pages, two in flight: the files in runs of 100 (by offset), two lanes taking the
    // next run as they finish one (halves would not do: the first 750 files hold 9.5 MB, the
    // last 750 16.7 MB). Each tool worker outlines one page at a time.
    start = performance.now();
    const runs = Array.from({ length: Math.ceil(files.length / 100) }, (_, i) => i * 100);
    await Promise.all(Array.from({ length: 2 }, async () => {
      for (let from = runs.shift(); from !== undefined; from = runs.shift()) {
        await pages(client, from, Math.min(from + 100, files.length));
      }
    }));
    const pagedTwo = (performance.now() - start) / 1000;
    const afterPaged = Math.max(peak, treeRss(pid));
    mark("after the two-at-a-time pass");

    start = performance.now();
    // limit: all of them; the tool still ends a reply at the output limit (200,000
    // characters), so this takes a few calls, each going on at next_offset.
    let bigCalls = 0;
    for (let offset: number | undefined = 0; offset !== undefined; bigCalls++) {
      const result: Awaited<ReturnType<Client["callTool"]>> = await client.callTool({
        name: "py_get_code_outline",
        arguments: { path: "lib", limit: FILES, offset },
      });
      if (result.isError) throw new Error(JSON.stringify(result.content));
      offset = (result.structuredContent as { next_offset?: number }).next_offset;
    }
    const onePass = (performance.now() - start) / 1000;
    mark("after the all-files pass");

    start = performance.now();
    for (const rel of files) await outline(client, { path: `lib/${rel}` });
    const sequential = (performance.now() - start) / 1000;
    mark("after sequential calls");

    start = performance.now();
    const queue = [...files];
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let rel = queue.shift(); rel; rel = queue.shift()) {
        await outline(client, { path: `lib/${rel}` });
      }
    }));
    const parallel = (performance.now() - start) / 1000;
    peak = Math.max(peak, treeRss(pid));
    mark("after parallel calls");

    console.log(
      `py_get_code_outline through the host (MCP over stdio, ${Deno.build.os}, ${navigator.hardwareConcurrency} cores)`,
    );
    console.log("");
    console.log("| measurement | result | target |");
    console.log("| --- | --- | --- |");
    console.log(
      `| argparse.py (${lines} lines), first parse, median of ${RUNS} | ${
        median(first).toFixed(2)
      } ms (min ${Math.min(...first).toFixed(2)}) | < 30 ms |`,
    );
    console.log(
      `| argparse.py, cached, median of ${RUNS * 10} | ${median(cached).toFixed(2)} ms (min ${
        Math.min(...cached).toFixed(2)
      }) | < 2 ms |`,
    );
    console.log(
      `| ${files.length} stdlib files (${
        mb.toFixed(1)
      } MB), directory calls with limit ${FILES} (${bigCalls} replies at the size limit) | ${
        onePass.toFixed(2)
      } s = ${(mb / onePass).toFixed(1)} MB/s | |`,
    );
    console.log(
      `| same, one directory pass in pages of 100 files (the default page; ${pageCalls} calls) | ${
        paged.toFixed(2)
      } s = ${(mb / paged).toFixed(1)} MB/s | |`,
    );
    console.log(
      `| same, pages of 100 files, two in flight (one per tool worker) | ${
        pagedTwo.toFixed(2)
      } s = ${(mb / pagedTwo).toFixed(1)} MB/s | ≥ 5 MB/s |`,
    );
    console.log(
      `| same, one call per file, sequential | ${sequential.toFixed(2)} s = ${
        (mb / sequential).toFixed(1)
      } MB/s | |`,
    );
    console.log(
      `| same, one call per file, 4 in flight | ${parallel.toFixed(2)} s = ${
        (mb / parallel).toFixed(1)
      } MB/s | |`,
    );
    console.log(
      `| host RSS (server + descendants), peak while doing it | ${
        (peak / 2 ** 20).toFixed(0)
      } MB (peak up to the end of the paged passes ${
        (afterPaged / 2 ** 20).toFixed(0)
      } MB) | < 300 MB |`,
    );
    console.log(`\nhost RSS: ${marks.join(", ")}`);
  } finally {
    clearInterval(sampler);
    await client.close();
  }
}

if (import.meta.main) await main();
