/**
 * The launch record (`host/cli/launch_record.ts`, `bin/toolhost start`):
 * a start whose inputs are as they were runs the command line the launcher
 * computed last time, exactly, without running the launcher; a start whose
 * inputs changed runs the launcher, which computes the line afresh. Each
 * start goes through the launch users run (`mcp-config`'s command), and the
 * served process's own command line and environment are read from /proc.
 */

import { assert, assertEquals, assertFalse, assertMatch, assertNotEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, type LaunchOptions } from "../../_mcp.ts";
import { AUDIT_END, auditedInputs } from "../../../host/cli/launch_record.ts";
import { statLines } from "../../../host/cli/_launch_stamps.ts";

const RECORDS = new URL("../../../node_modules/.toolhost-launch/", import.meta.url).pathname;

/** What one start ran: the served process's arguments and environment, and its record's state. */
interface Start {
  args: string[];
  env: Map<string, string>;
  /** The record's inode and change time after the start (`undefined`: none written). */
  record: string | undefined;
  /** Whether the audit this start's launcher wrote is still there. */
  auditLeft: boolean;
  /** How `get_host_performance` says it was launched. */
  launch: Record<string, unknown>;
  /** The start-up line. */
  stderr: string;
}

/** The record whose key names this root, as `inode:ctime`. */
async function recordState(root: string): Promise<string | undefined> {
  for await (const entry of Deno.readDir(RECORDS)) {
    if (!entry.isFile || entry.name.startsWith("audit.")) continue;
    const path = `${RECORDS}${entry.name}`;
    const text = await Deno.readTextFile(path).catch(() => "");
    const key = /^rec_key='([^']*)'$/m.exec(text)?.[1];
    if (key?.split("\n").includes(root)) {
      const info = await Deno.stat(path);
      return `${info.ino}:${info.ctime?.getTime()}`;
    }
  }
  return undefined;
}

/**
 * Wait until the root and what is in it changed (or were made) two whole seconds ago: a launcher
 * records nothing that changed within the second before its start.
 */
async function settled(root: string): Promise<void> {
  const latest = async (path: string) => {
    const info = await Deno.lstat(path);
    return Math.max(
      ...[info.mtime, info.ctime, info.birthtime].map((date) => date?.getTime() ?? 0),
    );
  };
  let newest = await latest(root);
  for await (const entry of Deno.readDir(root)) {
    newest = Math.max(newest, await latest(`${root}/${entry.name}`));
  }
  const after = (Math.floor(newest / 1000) + 2) * 1000;
  while (Date.now() < after) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Start the host as a client would, read what its process runs, and stop it. */
async function start(root: string, options: LaunchOptions = {}): Promise<Start> {
  await using session = await connectStdio([root], options);
  const listed = await session.client.listTools();
  assert(listed.tools.length > 0);
  const pid = session.pid!;
  const args = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0");
  const env = new Map(
    (await Deno.readTextFile(`/proc/${pid}/environ`)).split("\0").filter(Boolean).map((pair) => {
      const at = pair.indexOf("=");
      return [pair.slice(0, at), pair.slice(at + 1)] as [string, string];
    }),
  );
  const auditLeft = await Deno.stat(`${RECORDS}audit.${pid}.jsonl`).then(() => true, () => false);
  const performance = await session.call("get_host_performance");
  const launch = (performance.structuredContent as { status: { launch: Record<string, unknown> } })
    .status.launch;
  const stderr = session.stderr();
  return { args, env, record: await recordState(root), auditLeft, launch, stderr };
}

Deno.test("launch record: a start with nothing changed runs the recorded line; a change runs the launcher", async (t) => {
  await using root = await tempDir();
  const path = await Deno.realPath(root.path);
  // The first start makes the state directory in the root, which the second start's launcher sees
  // once it is older than the second's start (a path changed since is not recorded).
  const first = await start(path);
  await settled(path);
  const computed = await start(path);

  await t.step("the launcher leaves no audit, and passes none of its variables on", () => {
    for (const each of [first, computed]) {
      assertFalse(each.auditLeft);
      for (
        const name of ["TOOLHOST_LAUNCH_RECORD", "TOOLHOST_LAUNCH_KEY", "DENO_AUDIT_PERMISSIONS"]
      ) {
        assertFalse(each.env.has(name), name);
      }
    }
    assert(computed.record !== undefined, "a record is written");
    assertEquals(computed.launch, { from: "launcher", recorded: true });
    assertMatch(computed.stderr, /; launch worked out afresh \(recorded for the next start\)/);
  });

  await t.step("the next start uses the record: the same line, the same environment", async () => {
    const recorded = await start(path);
    assertEquals(recorded.record, computed.record, "the record was not written again");
    assertEquals(recorded.args, computed.args);
    assertEquals(
      new Map([...recorded.env].filter(([name]) => name !== "TOOLHOST_LAUNCH")),
      new Map([...computed.env].filter(([name]) => name !== "TOOLHOST_LAUNCH")),
    );
    assertEquals(recorded.launch, { from: "record" });
    assertMatch(recorded.stderr, /; started from its launch record/);
  });

  await t.step("a variable the launcher read changes: it runs, and the line follows", async () => {
    await using cache = await tempDir();
    const moved = await start(path, { env: { XDG_CACHE_HOME: cache.path } });
    assertNotEquals(moved.record, computed.record, "the launcher wrote the record again");
    assert(moved.args.some((arg) => arg.includes(`${cache.path}/toolhost/overlay/`)));
    assertFalse(computed.args.some((arg) => arg.includes(cache.path)));
  });

  await t.step("a file the launcher read appears: it runs, and the line follows", async () => {
    const before = await start(path);
    assert(before.args.some((arg) => arg.startsWith("--allow-run=") && arg.includes("bwrap")));
    await Deno.writeTextFile(
      `${path}/toolhost.json`,
      JSON.stringify({ shell: { enabled: false } }),
    );
    const after = await start(path);
    assertFalse(after.args.some((arg) => arg.startsWith("--allow-run=") && arg.includes("bwrap")));
  });

  await t.step("a file changed within the launcher's first second: no record is kept", async () => {
    const config = `${path}/toolhost.json`;
    await Deno.writeTextFile(config, JSON.stringify({ shell: { enabled: true } }));
    // A time ahead of the start stands for a change that stat's whole seconds could not tell apart.
    const ahead = new Date(Date.now() + 60_000);
    await Deno.utime(config, ahead, ahead);
    const racy = await start(path);
    assertEquals(racy.record, undefined);
    assertEquals(racy.launch.recorded, false);
    assertMatch(String(racy.launch.reason), /changed within its first second/);
    assert(racy.args.some((arg) => arg.startsWith("--allow-run=") && arg.includes("bwrap")));
  });
});

Deno.test("launch record: only an audit that reaches its end, and names only paths, variables and the user, is kept", () => {
  const row = (permission: string, value: unknown) => JSON.stringify({ v: 1, permission, value });
  const end = row("env", AUDIT_END);
  const read = [row("read", "/etc/hosts"), row("write", "/etc/hosts"), row("env", "HOME")];
  const inputs = auditedInputs([...read, row("sys", "uid"), end, row("net", "x:1"), ""].join("\n"));
  assertEquals([...inputs!.paths], ["/etc/hosts"]);
  assertEquals([...inputs!.names], ["HOME"]);
  assertEquals(auditedInputs(read.join("\n")), null, "no end: the audit may be cut short");
  for (const other of [row("net", "example.com:443"), row("run", "/bin/sh"), row("env", null)]) {
    assertEquals(auditedInputs([other, end].join("\n")), null, other);
  }
  assertEquals(auditedInputs([row("sys", "hostname"), end].join("\n")), null);
});

Deno.test("launch record: the launcher's modules list folders only where the record sees it (Deno.readDir)", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("../../../host/cli/launcher.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert(output.success);
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string; local?: string }[];
  };
  const own = graph.modules.filter((each) =>
    each.specifier.startsWith("file://") && !each.specifier.includes("/node_modules/")
  );
  assert(own.length > 10, "the launcher's own modules are listed");
  for (const { specifier } of own) {
    const text = await Deno.readTextFile(new URL(specifier));
    // node:fs lists folders past the wrapper that notes each listing for the record.
    assertFalse(/\b(?:readdir|opendir)(?:Sync)?\s*\(|\bnew Dir\b/.test(text), specifier);
  }
});

Deno.test("launch record: a checkout whose records cannot be written still starts, through the launcher", async () => {
  const repo = new URL("../../../", import.meta.url).pathname;
  await using scratch = await tempDir();
  await using root = await tempDir();
  // A checkout of the same code whose node_modules/.toolhost-launch no one can write to (a
  // folder of /proc, which refuses new files even to root), as in a checkout another user owns.
  const checkout = `${scratch.path}/checkout`;
  await Deno.mkdir(`${checkout}/bin`, { recursive: true });
  await Deno.copyFile(`${repo}bin/toolhost`, `${checkout}/bin/toolhost`);
  await Deno.chmod(`${checkout}/bin/toolhost`, 0o755);
  for (const dir of ["host", "security", "tools", "sinks"]) {
    await Deno.symlink(`${repo}${dir}`, `${checkout}/${dir}`);
  }
  for (const file of ["deno.json", "deno.lock"]) {
    await Deno.copyFile(`${repo}${file}`, `${checkout}/${file}`);
  }
  await Deno.mkdir(`${checkout}/node_modules`);
  for await (const entry of Deno.readDir(`${repo}node_modules`)) {
    if (entry.name === ".toolhost-launch") continue;
    const from = `${repo}node_modules/${entry.name}`;
    if (entry.name.startsWith(".toolhost-")) {
      await Deno.copyFile(from, `${checkout}/node_modules/${entry.name}`);
    } else await Deno.symlink(from, `${checkout}/node_modules/${entry.name}`);
  }
  await Deno.symlink("/proc/1", `${checkout}/node_modules/.toolhost-launch`);
  const child = new Deno.Command(`${checkout}/bin/toolhost`, {
    args: ["start", "--root", root.path],
    cwd: "/",
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  let answers = "";
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (!/"id":2/.test(answers)) {
    const { value, done } = await lines.read();
    if (done) break;
    answers += value;
  }
  await writer.close();
  await lines.cancel();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assertMatch(stderr, /toolhost: serving /);
  const listed = answers.split("\n").filter(Boolean).map((line) => JSON.parse(line))
    .find((message) => message.id === 2);
  assert(listed?.result?.tools?.length > 0, `${answers}\n${stderr}`);
  assertEquals(status.code, 0, stderr);
});

Deno.test("launch record: a path changed, made or removed within the launcher's first second is not recorded", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/config.json`;
  await Deno.writeTextFile(file, "{}");
  const now = Math.floor(Date.now() / 1000);
  const never = new Set<string>();
  // `settled` is the second before the launcher's start: what changed at or after it is too recent.
  assertEquals(statLines(new Set([file]), never, now - 1), null, "a file written just now");
  assertEquals(statLines(new Set([dir.path]), never, now - 1), null, "a folder made just now");
  assertEquals(
    statLines(new Set([`${dir.path}/gone.json`]), never, now - 1),
    null,
    "an absent file whose folder changed just now (it may have just been removed)",
  );
  const later = statLines(new Set([file, dir.path, `${dir.path}/gone.json`]), never, now + 60);
  assert(later !== null);
  // What the commands print is what was recorded: run them as the script does.
  const script = `${later.commands.map((command) => `${command} 2>/dev/null || true`).join("\n")}`;
  const printed = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped" }).output();
  assertEquals(new TextDecoder().decode(printed.stdout).trimEnd(), later.expected);
});
