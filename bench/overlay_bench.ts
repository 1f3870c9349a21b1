/**
 * What merging a command's overlay costs on a large build output, timed
 * from the client through the launch users run: `run_shell` makes N files
 * (a new tree: merged in one rename), then rewrites every one of them (an
 * existing tree: one rename per file), then deletes the tree (whiteouts).
 * The command times its own work inside the sandbox; what the call took
 * beyond that and beyond a `run_shell "true"` is the merge (and the
 * overlay's set-up). The same runs with writes straight to the roots
 * (overlays off: a config outside the root with `"landlock": false`, which
 * leaves the tool workers without libc's attribute calls) are the baseline.
 *
 * Usage: deno run -A bench/overlay_bench.ts [FILES]
 *
 * @module
 */

import { type LaunchedHost, launchHost } from "../tests/_mcp.ts";

const FILES = Number(Deno.args[0] ?? 20_000);
const PER_DIR = 100;

/** The command's own time (printed by it, in ms) and the call's, for one command. */
async function timed(
  host: LaunchedHost,
  command: string,
): Promise<{ inner: number; call: number }> {
  const started = performance.now();
  const result = await host.session.client.callTool(
    {
      name: "run_shell",
      arguments: {
        command:
          `s=$(date +%s%N); ${command}; e=$(date +%s%N); echo "inner $(( (e - s) / 1000000 ))"`,
        timeout_s: 600,
      },
    },
    { timeout: 660_000 },
  ) as { content: Array<{ type: string; text?: string }> };
  const call = performance.now() - started;
  const text = result.content.map((block) => block.type === "text" ? block.text : "").join("\n");
  const inner = Number(/inner (\d+)/.exec(text)?.[1] ?? NaN);
  if (Number.isNaN(inner)) throw new Error(`the command failed: ${text.slice(0, 500)}`);
  return { inner, call };
}

/** A shell command that writes `FILES` files of 1 KiB in `dir`, `PER_DIR` to a directory. */
function writeTree(dir: string): string {
  // Shell built-ins only in the loop (printf), so that the files, not the forks, are what is timed.
  return `for d in $(seq 1 ${Math.ceil(FILES / PER_DIR)}); do mkdir -p ${dir}/$d; ` +
    `for f in $(seq 1 ${PER_DIR}); do printf '%1024s' '' > ${dir}/$d/$f.o; done; done`;
}

/** The rows of one mode: base cost, new tree, rewritten tree, deleted tree. */
async function measure(mode: string, config?: string): Promise<string[]> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-overlay-bench-" }));
  try {
    await using host = await launchHost({ roots: [root], ...(config ? { config } : {}) });
    const line = host.session.stderr().split("\n").find((each) => each.includes("serving")) ?? "";
    if (!line.includes(mode === "overlay" ? "writes merged" : "writes straight")) {
      throw new Error(`not in ${mode} mode: ${line}`);
    }
    const base = (await timed(host, "true")).call;
    const rows: string[] = [];
    for (
      const [what, command] of [
        [`make ${FILES} files (a new tree)`, writeTree("build")],
        [`rewrite the ${FILES} files (an existing tree)`, writeTree("build")],
        ["delete the tree", "rm -rf build"],
      ]
    ) {
      const { inner, call } = await timed(host, command!);
      const added = call - inner - base;
      rows.push(`| ${mode} | ${what} | ${inner} | ${call.toFixed(0)} | ${added.toFixed(0)} |`);
    }
    return rows;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const outside = await Deno.makeTempDir({ prefix: "toolhost-overlay-bench-config-" });
try {
  await Deno.writeTextFile(`${outside}/direct.json`, JSON.stringify({ landlock: false }));
  const rows = [
    ...await measure("overlay"),
    ...await measure("direct", `${outside}/direct.json`),
  ];
  // deno-lint-ignore no-console
  console.log(
    [
      `run_shell on ${FILES} files of 1 KiB, ${PER_DIR} to a directory (ms)\n`,
      '| writes | command | inside the sandbox | the call | added beyond a run_shell "true" |',
      "| --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n"),
  );
} finally {
  await Deno.remove(outside, { recursive: true });
}
