/**
 * How the sandbox is set up in the launch `mcp-config` prints: where bwrap
 * is missing run_shell is not listed and the start-up line and
 * `get_host_performance` say why; `shell.unconfined` is warned at start;
 * `shell.network` shares the network; never-visible paths stay hidden inside
 * the roots and the toolchains.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";
import { bwrapMissing, shell } from "../../security/_shell.ts";

/** A project and a config file outside it. */
async function setup(base: string, shellSection: Record<string, unknown>) {
  const root = `${base}/project`;
  await Deno.mkdir(root, { recursive: true });
  const config = `${base}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify({ shell: shellSection }));
  return { root, config };
}

Deno.test("sandbox: without bwrap run_shell is not listed, and the start-up line and status say why", async () => {
  await using dir = await tempDir();
  const { root, config } = await setup(dir.path, { bwrap: `${dir.path}/no-bwrap` });
  await using host = await launchHost({ roots: [root], config });
  assertFalse(host.list().some((tool) => tool.name === "run_shell"));
  assertStringIncludes(
    host.session.stderr(),
    `run_shell, git and bd tools not listed: "${dir.path}/no-bwrap" does not exist`,
  );
  const status = (await host.call("get_host_performance")).structuredContent as {
    status: { sandbox: { active: boolean; mode: string } };
  };
  assertEquals(status.status.sandbox.active, false);
  assertEquals(status.status.sandbox.mode, "off");
});

Deno.test({
  name: `sandbox: shell.network shares the network, a loosening${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async () => {
  await using dir = await tempDir();
  const { root, config } = await setup(dir.path, { network: true });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("reached"),
  );
  try {
    await using host = await launchHost({ roots: [root], config });
    assertStringIncludes(host.session.stderr(), "confined by bubblewrap (network shared)");
    const port = (server.addr as Deno.NetAddr).port;
    const out = await shell(
      host,
      `python3 -c "import urllib.request as u; print(u.urlopen('http://127.0.0.1:${port}').read())"`,
    );
    assertStringIncludes(out.text, "reached");
  } finally {
    await server.shutdown();
  }
});

Deno.test("sandbox: shell.unconfined runs commands without bwrap, with a warning at start", async () => {
  await using dir = await tempDir();
  const { root, config } = await setup(dir.path, { bwrap: "off", unconfined: true });
  await using host = await launchHost({ roots: [root], config });
  assertStringIncludes(host.session.stderr(), "WARNING: run_shell commands run UNCONFINED");
  const out = await shell(host, "echo unconfined; pwd");
  assertEquals(out.data.stdout, `unconfined\n${root}\n`);
});

Deno.test({
  name: `sandbox: never-visible paths stay hidden inside a root and a toolchain${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async () => {
  await using dir = await tempDir();
  // The root is the home itself: its .ssh and .aws lie inside an allowed directory.
  const { root, config } = await setup(dir.path, {});
  const secret = `s3cret-${crypto.randomUUID()}`;
  await Deno.mkdir(`${root}/.ssh`);
  await Deno.mkdir(`${root}/.aws`);
  await Deno.writeTextFile(`${root}/.ssh/id_ed25519`, secret);
  await Deno.writeTextFile(`${root}/.aws/credentials`, secret);
  await Deno.writeTextFile(`${root}/.netrc`, secret);
  const tool = `${dir.path}/tool`;
  await Deno.mkdir(`${tool}/bin`, { recursive: true });
  await Deno.writeTextFile(`${tool}/.env`, secret);
  await Deno.writeTextFile(`${tool}/bin/hello`, "#!/bin/sh\necho hello from the toolchain\n");
  await Deno.chmod(`${tool}/bin/hello`, 0o755);
  await using host = await launchHost({
    roots: [root],
    config,
    env: {
      HOME: root,
      PATH: `${tool}/bin:${Deno.env.get("PATH")}`,
      // Deno's own cache stays where it is (it would follow HOME into the root).
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
    },
  });
  const out = await shell(
    host,
    `hello; cat .ssh/id_ed25519 .aws/credentials .netrc ${tool}/.env; ls -a .ssh .aws`,
  );
  assertStringIncludes(out.text, "hello from the toolchain");
  assertFalse(out.text.includes(secret), out.text);
  assert(!out.text.includes("id_ed25519\n"), out.text);
});

Deno.test({
  name: `sandbox: a toolhost.json inside a root cannot loosen the sandbox${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async () => {
  await using dir = await tempDir();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("reached"),
  );
  try {
    // As a cloned repository could ship it.
    await using host = await launchHost({
      roots: [dir.path],
      file: { shell: { network: true, unconfined: true, env: { LEAK: "${HOME}" } } },
    });
    const said = host.session.stderr();
    assertStringIncludes(said, "lies inside a root and is not trusted");
    for (const key of ["shell.unconfined", "shell.network", "shell.env"]) {
      assertStringIncludes(said, `"${key}"`);
    }
    assertStringIncludes(said, "confined by bubblewrap, no network");
    const port = (server.addr as Deno.NetAddr).port;
    const out = await shell(
      host,
      `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected; echo "[$LEAK]"`,
    );
    assertFalse(out.text.includes("connected"), out.text);
    assertStringIncludes(out.text, "[]");
  } finally {
    await server.shutdown();
  }
});
