/**
 * What fetch_url costs, timed from the client through the launch users run
 * (the command `mcp-config` prints, its config outside the root unlocking
 * one loopback port): the first call (it starts the network worker, a Deno
 * process of its own), then fetches of the fixture article (a new URL each
 * time, so that nothing comes from the page cache), and pages of a kept
 * document; against the client fetching the same article with `fetch`.
 *
 * Usage: deno run -A bench/fetch_bench.ts [RUNS]
 *
 * @module
 */

import { launchHost } from "../tests/_mcp.ts";
import { quantile } from "./_measure.ts";

const RUNS = Number(Deno.args[0] ?? 200);
const ARTICLE = await Deno.readTextFile(new URL("../fixtures/web/article.html", import.meta.url));

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  const path = new URL(request.url).pathname;
  const body = path.startsWith("/long")
    ? "a line of text to page through\n".repeat(20_000)
    : ARTICLE;
  return new Response(body, {
    headers: { "content-type": path.startsWith("/long") ? "text/plain" : "text/html" },
  });
});
const base = `http://127.0.0.1:${server.addr.port}`;
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-fetch-bench-" }));
const outside = await Deno.makeTempDir({ prefix: "toolhost-fetch-bench-config-" });

/** p50 and p95 of a list, in ms. */
function row(name: string, times: number[]): string {
  const at = (q: number) => quantile(times, q).toFixed(2);
  return `| ${name} | ${at(0.5)} | ${at(0.95)} |`;
}

/** Each call's ms. */
async function timed(runs: number, once: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once(i);
    times.push(performance.now() - started);
  }
  return times;
}

try {
  await Deno.writeTextFile(
    `${outside}/toolhost.json`,
    JSON.stringify({ net: { allow: [`127.0.0.1:${server.addr.port}`] } }),
  );
  await using host = await launchHost({ roots: [root], config: `${outside}/toolhost.json` });
  const fetchOnce = async (url: string, extra: Record<string, unknown> = {}) => {
    const result = await host.call("fetch_url", { url, ...extra });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  const first = await timed(1, () => fetchOnce(`${base}/article?first`));
  const articles = await timed(RUNS, (i) => fetchOnce(`${base}/article?${i}`));
  await fetchOnce(`${base}/long`);
  const pages = await timed(RUNS, (i) => fetchOnce(`${base}/long`, { offset: (i % 25) * 20_000 }));
  const direct = await timed(RUNS, async (i) => {
    await (await fetch(`${base}/article?direct${i}`)).text();
  });
  const lines = [
    `fetch_url through the mcp-config launch, ${RUNS} runs each (ms)\n`,
    "| what | p50 | p95 |\n| --- | --- | --- |",
    `| first call (starts the network worker) | ${first[0]!.toFixed(1)} | |`,
    row("the fixture article to Markdown (new URL each time)", articles),
    row("a 20,000-character page of a kept 600 KB document", pages),
    row("the client's own fetch of the article (no conversion)", direct),
  ];
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
} finally {
  await server.shutdown();
  await Deno.remove(root, { recursive: true });
  await Deno.remove(outside, { recursive: true });
}
