/**
 * `bin/toolhost`, the command `mcp-config` prints: it outlives the Deno that
 * printed it, runs from any directory, installs Deno and the dependencies
 * quietly when they are missing, links itself onto the PATH, and an entry
 * whose Deno flags are stale says in one line what to do.
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
import { canRun, tempDir } from "../../_helpers.ts";
import { LIBC_CANDIDATES } from "../../../security/landlock.ts";
import { INITIALIZE } from "../transports/stdio_raw.ts";

const CHECKOUT = new URL("../../../", import.meta.url).pathname.replace(/\/$/, "");
const BIN = `${CHECKOUT}/bin/toolhost`;
const HOME = Deno.env.get("HOME") ?? "/root";

/** A command line, as a `.mcp.json` entry has it. */
interface Entry {
  command: string;
  args: string[];
}

/** A program's run: exit code and what it said. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a program to its end, stdin closed. */
async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<Run> {
  const output = await new Deno.Command(command, { args, stdin: "null", cwd: "/", ...options })
    .output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** The entry `mcp-config` prints, from a given Deno, run from `/`. */
async function mcpConfig(deno: string, args: string[], cwd = "/"): Promise<Entry> {
  const printed = await run(deno, ["run", "-A", `${CHECKOUT}/mod.ts`, "mcp-config", ...args], {
    cwd,
  });
  assertEquals(printed.code, 0, printed.stderr);
  return JSON.parse(printed.stdout).mcpServers.toolhost;
}

/**
 * A PATH with every program of this one but `program`, as links in `dir`
 * (so that bin/toolhost must find or install Deno itself).
 */
async function pathWithout(program: string, dir: string): Promise<string> {
  for (const each of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(each));
    } catch {
      continue; // a PATH entry that does not exist: nothing to link
    }
    for (const { name } of entries) {
      if (name === program) continue;
      await Deno.symlink(`${each}/${name}`, `${dir}/${name}`).catch(() => {}); // first one wins
    }
  }
  return dir;
}

/** What npm needs from the environment to reach its registry here (proxies, certificates). */
function networkEnv(): Record<string, string> {
  const names = ["NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy"];
  const env: Record<string, string> = {};
  for (const name of [...names, "http_proxy", "no_proxy"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Where this Deno keeps its cache. */
async function denoDir(): Promise<string> {
  const info = await run(Deno.execPath(), ["info", "--json"]);
  return JSON.parse(info.stdout).denoDir;
}

/** Start an entry as an MCP client does, connect, and list the tools. */
async function connect(entry: Entry, options: { cwd: string; env: Record<string, string> }) {
  const transport = new StdioClientTransport({ ...entry, ...options, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "toolhost-bin-test", version: "1" });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
  return {
    client,
    tools,
    stderr: () => stderr,
    read: async (path: string) => {
      const result = await client.callTool({ name: "read_file", arguments: { path } });
      return (result.content as Array<{ text: string }>)[0]!.text;
    },
    [Symbol.asyncDispose]: () => client.close(),
  };
}

Deno.test("bin/toolhost grants the launcher each libc the launcher may look for", async () => {
  const script = await Deno.readTextFile(BIN);
  for (const libc of LIBC_CANDIDATES) assertStringIncludes(script, libc);
});

Deno.test("the printed entry starts the server from / after the Deno that printed it is gone, installing Deno from npm when none is on the PATH", async () => {
  await using root = await tempDir();
  await using scratch = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  // mcp-config run by a Deno that then disappears (as npx's cache does when it is cleared).
  const gone = `${scratch.path}/deno`;
  await Deno.copyFile(Deno.execPath(), gone);
  await Deno.chmod(gone, 0o755);
  const entry = await mcpConfig(gone, ["--root", root.path]);
  await Deno.remove(gone);
  assertFalse(JSON.stringify(entry).includes(scratch.path), "no path of the Deno that printed it");
  assertFalse(/node_modules|@\d/.test(JSON.stringify(entry)), "no dependency paths or versions");
  // No deno on the PATH, an empty cache: bin/toolhost installs Deno 2.9.6 with npm (from npm's
  // own cache when it has it) into XDG_CACHE_HOME, once.
  await Deno.mkdir(`${scratch.path}/bin`);
  const env = {
    ...networkEnv(),
    PATH: await pathWithout("deno", `${scratch.path}/bin`),
    HOME,
    XDG_CACHE_HOME: `${scratch.path}/cache`,
    DENO_DIR: await denoDir(), // Deno's own cache stays where it is (it is not npx's)
  };
  {
    await using first = await connect(entry, { cwd: "/", env });
    assert(first.tools.includes("read_file"), first.tools.join(" "));
    assertEquals(await first.read("a.txt"), "alpha\n");
    assertStringIncludes(first.stderr(), "toolhost: installing Deno 2.9.6 from npm");
    assertFalse(/npm (warn|notice)|added \d+ package/i.test(first.stderr()), first.stderr());
  }
  const cached = `${scratch.path}/cache/toolhost/deno-2.9.6/node_modules/deno/deno`;
  assertMatch((await run(cached, ["--version"])).stdout, /^deno 2\.9\.6 /);
  await using again = await connect(entry, { cwd: "/", env });
  assertEquals(await again.read("a.txt"), "alpha\n");
  assertFalse(again.stderr().includes("installing"), again.stderr());
});

Deno.test("toolhost install links it onto the PATH, and a --team entry starts from the project", async () => {
  await using home = await tempDir();
  await using project = await tempDir();
  await Deno.writeTextFile(`${project.path}/a.txt`, "team\n");
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const installed = await run(BIN, ["install"], { env: { PATH: path, HOME: home.path } });
  assertEquals(installed.code, 0, installed.stderr);
  const link = `${home.path}/.local/bin/toolhost`;
  assertEquals(await Deno.realPath(link), BIN);
  assertStringIncludes(installed.stdout, `${home.path}/.local/bin is not on your PATH`);
  // Through the link (the checkout is found through it), from the project, for a team.
  const printed = await run(link, ["mcp-config", "--team"], {
    cwd: project.path,
    env: { PATH: path, HOME: home.path },
  });
  assertEquals(printed.code, 0, printed.stderr);
  const entry: Entry = JSON.parse(printed.stdout).mcpServers.toolhost;
  assertEquals(entry, { command: "toolhost", args: ["start", "--root", "."] });
  // The client starts it in the project (Claude Code's working directory is the project).
  await using session = await connect(entry, {
    cwd: project.path,
    env: { PATH: `${home.path}/.local/bin:${path}`, HOME: home.path },
  });
  assertEquals(await session.read("a.txt"), "team\n");
  assertStringIncludes(session.stderr(), `toolhost: serving ${project.path};`);
});

/**
 * The scoped command line `toolhost flags` prints, as words (temp paths need
 * no quoting), after the variables it sets first (`NAME='value' …`, a shell's
 * quoting), which {@linkcode startWith} sets in the environment. It runs
 * host/cli/main.ts, the entry bin/toolhost runs for `flags`: mod.ts also
 * loads the library's exports (1.4 CPU-s a run instead of 0.4), and the test
 * of a Deno that is gone already runs a command through it.
 */
async function scopedWords(
  root: string,
): Promise<{ words: string[]; env: Record<string, string> }> {
  const flags = await run(Deno.execPath(), [
    "run",
    "-A",
    `${CHECKOUT}/host/cli/main.ts`,
    "flags",
    "--root",
    root,
  ]);
  assertEquals(flags.code, 0, flags.stderr);
  const env: Record<string, string> = {};
  let rest = flags.stdout.trim();
  for (;;) {
    const assignment = /^([A-Z_]+)='((?:[^']|'\\'')*)' /.exec(rest);
    if (!assignment) break;
    env[assignment[1]!] = assignment[2]!.replaceAll(`'\\''`, "'");
    rest = rest.slice(assignment[0].length);
  }
  return { words: rest.split(" "), env };
}

/** Run a command line to its end with an MCP initialize on stdin. */
async function startWith(words: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = new Deno.Command(words[0]!, {
    args: words.slice(1),
    env,
    cwd: "/",
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`${JSON.stringify(INITIALIZE)}\n`));
  await writer.close().catch(() => {}); // it may have exited already: its stderr says why
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  clearTimeout(timer);
  return { code: status.code, stdout, stderr };
}

Deno.test("an entry whose Deno flags are stale says in one line what to run, no stack trace", async (t) => {
  await using root = await tempDir();
  const { words, env } = await scopedWords(root.path);
  await t.step("as printed (its variables set as a shell sets them), it serves", async () => {
    const result = await startWith(words, env);
    assertStringIncludes(result.stdout, `"serverInfo":{"name":"toolhost"`, result.stderr);
  });
  const stale: Record<string, (word: string) => string> = {
    // Printed before a dependency update: the grammar's version directory moved.
    "a dependency updated": (word) =>
      word.replace(/tree-sitter-python@[\d.]+/g, "tree-sitter-python@0.0.1"),
    // Printed by an older toolhost, before its code moved.
    "toolhost's code moved": (word) => word.replace(`${CHECKOUT}/tools/,`, ""),
  };
  if (words.some((word) => word.startsWith("--allow-run="))) {
    // Printed before ripgrep was installed where it is now.
    stale["ripgrep moved"] = (word) =>
      word.startsWith("--allow-run=") ? "--allow-run=/nowhere/rg" : word;
  }
  for (const [why, change] of Object.entries(stale)) {
    await t.step(why, async () => {
      const changed = words.map(change);
      assertFalse(changed.join(" ") === words.join(" "), "the flags changed");
      const result = await startWith(changed, env);
      assert(result.code !== 0, "it exits non-zero");
      assertEquals(result.stdout, "", "no MCP answer");
      const lines = result.stderr.trim().split("\n");
      assertEquals(lines.length, 1, result.stderr);
      assertMatch(
        lines[0]!,
        /^toolhost: this MCP entry's Deno flags no longer match what toolhost needs \(.+\); run ".*\/bin\/toolhost mcp-config" and replace the entry$/,
      );
      assertFalse(/\bat |Uncaught/.test(result.stderr), result.stderr);
      assertFalse(result.stderr.includes("\x1b["), "no colour codes");
    });
  }
});

/** A copy of the checkout's code and manifests, without node_modules. */
async function copyCheckout(to: string): Promise<void> {
  const parts = ["mod.ts", "deno.json", "deno.lock", "bin", "host", "security", "tools", "sinks"];
  const copied = await run("cp", ["-R", ...parts.map((part) => `${CHECKOUT}/${part}`), to]);
  assertEquals(copied.code, 0, copied.stderr);
}

Deno.test("the first start says once that it installs the dependencies, and shows the package manager's output only when it fails", async (t) => {
  await using root = await tempDir();
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME,
    TOOLHOST_DENO: Deno.execPath(),
  };
  await t.step("installed quietly", async () => {
    await using copy = await tempDir();
    await copyCheckout(copy.path);
    await using session = await connect({
      command: `${copy.path}/bin/toolhost`,
      args: ["start", "--root", root.path],
    }, { cwd: "/", env });
    assert(session.tools.includes("read_file"));
    const lines = session.stderr().trim().split("\n");
    assertEquals(lines[0], "toolhost: installing dependencies (first start)…");
    assertMatch(lines[1] ?? "", /^toolhost: serving /);
    assertEquals(lines.length, 2, session.stderr());
  });
  await t.step("a failed install shows its output", async () => {
    await using copy = await tempDir();
    await copyCheckout(copy.path);
    await Deno.writeTextFile(`${copy.path}/deno.json`, "{ not json");
    const result = await startWith([`${copy.path}/bin/toolhost`, "start", "--root", root.path]);
    assertEquals(result.code, 1);
    assertStringIncludes(result.stderr, "toolhost: installing dependencies (first start)…");
    assertStringIncludes(result.stderr, `${copy.path}/deno.json`); // deno install's own error
    assertMatch(result.stderr, /toolhost: could not install toolhost's dependencies .*\n$/);
  });
});

Deno.test({
  name: "started from a terminal, it says it waits for an MCP client and where to get the entry",
  ignore: !canRun("script"),
  async fn() {
    await using root = await tempDir();
    // `script` gives the server a terminal for stdin (and writes what it says to stdout).
    const child = new Deno.Command("script", {
      args: ["-qec", `${BIN} start --root ${root.path}`, "/dev/null"],
      cwd: "/",
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    let said = "";
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!/toolhost: serving[^\n]*\n/.test(said)) {
        const { value, done } = await reader.read();
        if (done) break;
        said += value;
      }
    } finally {
      child.kill("SIGTERM");
      await reader.cancel();
      await child.stdin.close().catch(() => {}); // it may be closed already: nothing to flush
      await child.status;
      clearTimeout(timer);
    }
    assertMatch(
      said,
      /toolhost: serving [^\n]*; waiting for an MCP client on stdin \(see "toolhost mcp-config" to connect one\)\r?\n/,
    );
  },
});
