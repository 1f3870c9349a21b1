/**
 * The command line, run as a real subprocess.
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { cliRun, tempDir, testHost } from "../../_helpers.ts";
import { servedStatus } from "../../../host/cli/doctor_served.ts";
import { INITIALIZE } from "../transports/stdio_raw.ts";

/** `toolhost start` for one root, from `/`, its stdin and stdout piped. */
function spawnStart(root: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: cliRun(["start", "--root", root]),
    cwd: "/",
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

async function toolhost(args: string[], options: { cwd?: string; flags?: string[] } = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: cliRun(args, options.flags),
    cwd: options.cwd ?? "/",
    stdin: "null",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/**
 * `toolhost call ARGS…` run in this process by the CLI's own `main`, for calls that only fill
 * the log a test reads: `call` itself is run as a subprocess where it is the subject ("call and
 * tools run through the same dispatcher"); a child here would cost a Deno start and a load of
 * the host's modules per call. What it prints is not looked at.
 */
async function callHere(args: string[]): Promise<number> {
  const { main } = await import("../../../host/cli/main.ts");
  return await main(["call", ...args], { out: () => {}, err: () => {} });
}

Deno.test("cli: flags print the scoped server; mcp-config prints bin/toolhost start, which computes them at each start", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  const flags = await toolhost(["flags", "--root", a.path]);
  assertEquals(flags.code, 0);
  assertMatch(flags.stdout, new RegExp(`--allow-read=${a.path},${a.path}/\\.toolhost`));
  // The roots, the state directory, and where shell commands' writes wait to be merged (outside).
  assertMatch(
    flags.stdout,
    new RegExp(`--allow-write=${a.path},${a.path}/\\.toolhost,[^ ,]*/toolhost/overlay/[0-9a-f]+ `),
  );
  assertFalse(
    /--allow-(read|write|all|run|net|env)( |$)|\s-A\s/.test(flags.stdout),
    "no unscoped grant",
  );
  assertStringIncludes(flags.stdout, `/host/cli/serve_main.ts --root ${a.path}`);

  const config = await toolhost(["mcp-config", "--root", a.path, "--root", b.path]);
  assertEquals(config.code, 0);
  const entry = JSON.parse(config.stdout).mcpServers.toolhost;
  // No Deno path, no dependency versions, no flags: the launcher computes them at each start.
  assertEquals(entry, {
    command: new URL("../../../bin/toolhost", import.meta.url).pathname,
    args: ["start", "--root", a.path, "--root", b.path],
  });
});

Deno.test("cli: mcp-config --team prints toolhost on the PATH with roots relative to here", async () => {
  await using project = await tempDir();
  await Deno.mkdir(`${project.path}/src`);
  await Deno.writeTextFile(`${project.path}/th.json`, "{}");
  const config = await toolhost(
    ["mcp-config", "--team", "--root", ".", "--root", "src", "--config", "th.json"],
    { cwd: project.path },
  );
  assertEquals(config.code, 0, config.stderr);
  assertEquals(JSON.parse(config.stdout).mcpServers.toolhost, {
    command: "toolhost",
    args: ["start", "--root", ".", "--root", "src", "--config", "th.json"],
  });
});

Deno.test("cli: flags grant what the user's sink peers need whatever env the client later gives, and nothing for an untrusted .mcp.json in a root", async () => {
  await using root = await tempDir();
  await using mine = await tempDir();
  const peers = { mcpServers: { obs: { command: Deno.execPath(), args: ["run", "x.ts"] } } };
  await Deno.writeTextFile(`${root.path}/.mcp.json`, JSON.stringify(peers));
  const project = await toolhost(["flags", "--root", root.path]);
  assertEquals(project.code, 0);
  // No MCP client code to start peers with (Deno itself is run only for the network worker).
  assertFalse(/--allow-env=[^ ]*OSTYPE/.test(project.stdout));
  // The user's own .mcp.json, outside the roots (named by their own config file there).
  await Deno.writeTextFile(`${mine.path}/.mcp.json`, JSON.stringify(peers));
  await Deno.writeTextFile(
    `${mine.path}/th.json`,
    JSON.stringify({ sinks: { mcpJson: ".mcp.json" } }),
  );
  const flags = await toolhost(["flags", "--root", root.path, "--config", `${mine.path}/th.json`]);
  assertEquals(flags.code, 0, flags.stderr);
  assertMatch(flags.stdout, new RegExp(`--allow-run=[^ ]*${Deno.execPath()}`));
  assertMatch(flags.stdout, /--allow-env=[^ ]*EFFERENT_COPY_ENABLE[^ ]*OSTYPE/);
  assertMatch(flags.stdout, new RegExp(`--allow-read=[^ ]*${mine.path}/\\.mcp\\.json`));
});

Deno.test("cli: serve refuses broad permissions and prints the flags to use", async () => {
  await using root = await tempDir();
  const result = await toolhost(["serve", "--root", root.path]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "read is granted everywhere");
  assertStringIncludes(result.stderr, "refusing to serve");
  assertStringIncludes(result.stderr, `--allow-read=${root.path}`);
});

Deno.test("cli: call and tools run through the same dispatcher", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const ok = await toolhost(["call", "read_file", '{"path": "a.txt"}', "--root", root.path]);
  assertEquals(ok.code, 0);
  assertEquals(ok.stdout, "alpha\n\n");
  const denied = await toolhost([
    "call",
    "read_file",
    '{"path": "/etc/passwd"}',
    "--root",
    root.path,
  ]);
  assertEquals(denied.code, 1);
  assertMatch(denied.stdout, /^path_denied: /);
  const bad = await toolhost(["call", "read_file", "{not json", "--root", root.path]);
  assertEquals(bad.code, 2);
  const tools = await toolhost(["tools", "--root", root.path]);
  assertEquals(tools.code, 0);
  assertMatch(tools.stdout, /^read_file\s+read\s+Read a text file/m);
  assertMatch(tools.stdout, /^write_file\s+edit\s+/m);
});

Deno.test("cli: doctor --json runs live probes of both boundaries", async () => {
  await using root = await tempDir();
  const result = await toolhost(["doctor", "--root", root.path, "--json"]);
  assertEquals(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assertEquals(report.ok, true);
  assertEquals(report.roots, [root.path]);
  const names: string[] = report.probes.map((probe: { name: string }) => probe.name);
  for (
    const part of [
      "raw read outside",
      "raw write outside",
      "symlink to a file outside",
      "`..` escape",
      "absolute path outside",
      "served process",
    ]
  ) {
    assert(names.some((name) => name.includes(part)), part);
  }
  for (const probe of report.probes) assertEquals(probe.ok, true, `${probe.name}: ${probe.detail}`);
  // The probe cleans up after itself.
  assertEquals([...Deno.readDirSync(root.path)].map((entry) => entry.name), [".toolhost"]);
});

Deno.test("cli: doctor probes from outside the roots when a root holds the temp directory", async () => {
  await using root = await tempDir();
  // The temp directory is inside the root: the outside file must go elsewhere.
  await Deno.mkdir(`${root.path}/tmp`);
  const output = await new Deno.Command(Deno.execPath(), {
    args: cliRun(["doctor", "--root", root.path, "--json"]),
    cwd: "/",
    env: { TMPDIR: `${root.path}/tmp` },
    stdin: "null",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(output.stdout));
  for (const probe of report.probes) assertEquals(probe.ok, true, `${probe.name}: ${probe.detail}`);
  assertEquals(output.code, 0);
  const outside = report.probes.find((probe: { name: string }) => probe.name.includes("raw read"));
  assertFalse(outside.detail.includes(root.path), outside.detail);
});

Deno.test("cli: start re-launches scoped and serves MCP over stdio", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "via start\n");
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: cliRun(["start", "--root", root.path]),
    cwd: "/",
    stderr: "pipe",
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/root" },
  });
  const client = new Client({ name: "cli-test", version: "1" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    assertEquals((result.content as Array<{ text: string }>)[0]!.text, "via start\n");
    // The served process is scoped: tool code cannot see outside even through the audit.
    const outside = await client.callTool({
      name: "read_file",
      arguments: { path: "/etc/hostname" },
    });
    assertEquals(outside.isError, true);
  } finally {
    await client.close();
  }
});

Deno.test("cli: start exits when the client closes its stdin, passing the exit code on", async () => {
  await using root = await tempDir();
  const child = spawnStart(root.path);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`${JSON.stringify(INITIALIZE)}\n`));
  const reader = child.stdout.getReader();
  const first = await reader.read(); // the server is up and answered
  assertStringIncludes(new TextDecoder().decode(first.value), '"id":1');
  await writer.close();
  // A watchdog for a server that would never end; how soon it ends is bench/lifecycle_bench.ts's.
  let killed = false;
  const timer = setTimeout(() => (killed = true, child.kill("SIGKILL")), 60_000);
  const status = await child.status;
  clearTimeout(timer);
  await reader.cancel();
  assertFalse(killed, "it exited on its own, not stopped by the watchdog");
  assertEquals([status.code, status.signal], [0, null]);
});

Deno.test("cli: a client that writes its requests and closes stdin at once still gets every answer", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  // Enough files that the grep is still running when the input ends.
  for (let i = 0; i < 2000; i++) {
    await Deno.writeTextFile(`${root.path}/f${i}.txt`, `line ${i}\n`.repeat(50));
  }
  const child = spawnStart(root.path);
  const requests = [
    INITIALIZE,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "grep", arguments: { pattern: "never there" } },
    },
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "read_file", arguments: { path: "a.txt" } },
    },
  ];
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(requests.map((each) => `${JSON.stringify(each)}\n`).join("")),
  );
  await writer.close();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [status, out] = await Promise.all([child.status, new Response(child.stdout).text()]);
  clearTimeout(timer);
  assertEquals(status.code, 0);
  // Calls run concurrently: the quick read may be answered before the grep.
  const answers = out.trim().split("\n").map((line) => JSON.parse(line))
    .sort((a, b) => a.id - b.id);
  assertEquals(answers.map((each) => each.id), [1, 2, 3]);
  assertStringIncludes(answers[1].result.content[0].text, "No matches");
  assertStringIncludes(answers[2].result.content[0].text, "alpha");
});

Deno.test("cli: the served process confines its tool workers with Landlock where the kernel has it", async () => {
  await using root = await tempDir();
  // What this kernel offers, seen from a host in this (unscoped) process.
  const kernel = await testHost({ roots: [root.path] });
  const abi = kernel.landlock.abi;
  await kernel.close();
  // What `start` says on stderr when it begins to serve (read as doctor reads it).
  const line = await servedStatus({
    command: Deno.execPath(),
    args: cliRun(["start", "--root", root.path]),
  });
  // Confined, the workers' reads call libc directly (security/native_fs.ts).
  if (abi > 0) {
    assertStringIncludes(
      line,
      `tool workers confined by Landlock (ABI ${abi}); reads through libc`,
    );
  } else assertStringIncludes(line, "Landlock is not active (the kernel has no Landlock");
});

Deno.test("cli: log prints recent calls as a table, with filters", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await callHere(["read_file", '{"path": "a.txt"}', "--root", root.path]);
  await callHere(["read_file", '{"path": "/etc/passwd"}', "--root", root.path]);
  const all = await toolhost(["log", "--root", root.path]);
  assertEquals(all.code, 0);
  assertMatch(all.stdout, /^time \(UTC\)\s+tool\s+outcome/);
  assertMatch(all.stdout, /read_file\s+path_denied/);
  assertMatch(all.stdout, /read_file\s+ok .*a\.txt/);
  assertStringIncludes(all.stdout, "2 calls");
  const denied = await toolhost(["log", "--root", root.path, "--outcome", "path_denied"]);
  assertStringIncludes(denied.stdout, "1 call ");
  assertEquals((await toolhost(["log", "--root", root.path, "--since", "soon"])).code, 2);
});
