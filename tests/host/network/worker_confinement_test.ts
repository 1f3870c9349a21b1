/**
 * The network worker cannot read a file in the roots, nor write, run,
 * read the environment, or reach loopback: a probe run with its exact
 * command line tries every way a Deno program has; the real worker, spoken
 * to as the host speaks to it, is handed file URLs every way it takes a
 * URL (a fetch, the search endpoint, a redirect); the secret never shows.
 */

import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { netSettings } from "../../../host/config/net_settings.ts";
import { NetworkService, workerCommand } from "../../../host/network/mod.ts";
import { ToolError } from "../../../security/errors.ts";
import { fixtureSite } from "./_web.ts";

const SECRET = "the project's secret: 5d1e0c";

/** A root holding a secret file, a module and a JSON file. */
async function rootWithSecret(path: string): Promise<string> {
  await Deno.writeTextFile(`${path}/secret.txt`, SECRET);
  await Deno.writeTextFile(`${path}/module.js`, `export default ${JSON.stringify(SECRET)};`);
  await Deno.writeTextFile(`${path}/data.json`, JSON.stringify({ secret: SECRET }));
  return `${path}/secret.txt`;
}

Deno.test("the network worker's command line grants no file, program, env or loopback access", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  const file = await rootWithSecret(root.path);
  const settings = (await netSettings({}, []))!;
  const { command, args } = workerCommand(settings);
  // The same command line, with the probe in place of the worker's entry.
  const probe = new URL("./_probe_worker.ts", import.meta.url).pathname;
  const output = await new Deno.Command(command, {
    args: [...args.slice(0, -1), probe, file, root.path, String(site.port)],
    cwd: "/",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert(output.success, new TextDecoder().decode(output.stderr));
  assert(!stdout.includes(SECRET), stdout);
  const { results, permissions } = JSON.parse(stdout) as {
    results: Record<string, string>;
    permissions: Record<string, string>;
  };
  for (const [attempt, outcome] of Object.entries(results)) {
    assertMatch(outcome, /^failed: /, attempt);
  }
  assertEquals(site.requests, [], "the probe reached the loopback site");
  assertEquals(permissions, {
    read: "prompt",
    write: "prompt",
    run: "prompt",
    env: "prompt",
    ffi: "prompt",
    sys: "prompt",
    import: "prompt",
    "net 8.8.8.8:443": "granted",
    "net 127.0.0.1": "prompt",
    "net 169.254.169.254:80": "prompt",
    "net 10.0.0.1:80": "prompt",
    "net example.com:443": "prompt",
  });
  // Nothing was written or removed in the root.
  assertEquals(
    (await Array.fromAsync(Deno.readDir(root.path))).map((entry) => entry.name).sort(),
    ["data.json", "module.js", "secret.txt"],
  );
});

Deno.test("the network worker refuses file URLs every way it is handed a URL", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  const file = await rootWithSecret(root.path);
  const net = { allow: [`127.0.0.1:${site.port}`] };
  const settings = (await netSettings(net, []))!;
  const network = new NetworkService(settings);
  const searching = new NetworkService({ ...settings, searchUrl: `file://${file}` });
  const signal = new AbortController().signal;
  const failures: string[] = [];
  const attempt = async (what: string, run: () => Promise<unknown>) => {
    try {
      failures.push(`${what} succeeded: ${JSON.stringify(await run())}`);
    } catch (error) {
      assert(error instanceof ToolError, String(error));
      failures.push(`${what}: ${error.code}: ${error.message}`);
    }
  };
  try {
    for (const url of [`file://${file}`, `FILE://${file}`, `file:${file}`]) {
      await attempt(url, () => network.fetchPage({ url, format: "text", signal }));
    }
    const redirect = site.url(`/redirect?to=${encodeURIComponent(`file://${file}`)}`);
    await attempt("a redirect", () => network.fetchPage({ url: redirect, format: "text", signal }));
    await attempt(
      "the search endpoint",
      () => searching.search({ query: "x", maxResults: 5, signal }),
    );
  } finally {
    network.close();
    searching.close();
  }
  assertEquals(failures.length, 5);
  for (const failure of failures) {
    assert(!failure.includes(SECRET), failure);
    assertMatch(failure, /: (invalid_argument|net_denied): /, failure);
  }
});
