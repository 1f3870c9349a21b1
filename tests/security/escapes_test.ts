/**
 * Every escape class, through the whole host in the launch users run (the
 * server `mcp-config` prints, over a real MCP client), for every tool that
 * takes a path. Nothing outside the root may be read, written,
 * listed or named as existing. The escapes that need nothing but the root
 * (and, for the links, uniquely named links in it) share one host, a step
 * each; a config file or a second root gets a host of its own.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir, textOf } from "../_helpers.ts";
import { type LaunchedHost, launchHost } from "../_mcp.ts";

const SECRET = "OUTSIDE-SECRET-CONTENT";

/** Every path-taking call, with the path under test in its path argument. */
function pathCalls(path: string): Array<[string, Record<string, unknown>]> {
  return [
    ["read_file", { path }],
    ["get_file_slice", { path, start_line: 1, end_line: 5 }],
    ["set_file_slice", { path, start_line: 1, end_line: 1, content: "pwned" }],
    ["edit_file", { path, old_string: SECRET, new_string: "pwned" }],
    ["write_file", { path, content: "pwned" }],
    ["get_file_info", { path }],
    ["list_directory", { path }],
    ["create_directory", { path: `${path}/newdir` }],
    ["move_file", { source: path, destination: "moved-in" }],
    ["search_files", { path, pattern: "*" }],
    ["grep", { path, pattern: "SECRET" }],
    ["get_tree", { path }],
  ];
}

/** Every tool these tests call is served by default: one missing is a failure, never a skip. */
function assertListed(host: LaunchedHost, tool: string): void {
  const names = host.list().map((each) => each.name);
  assert(names.includes(tool), `${tool} is not listed: ${names.join(", ")}`);
}

async function expectDenied(
  host: LaunchedHost,
  path: string,
  code = /^(path_denied|invalid_path): /,
): Promise<void> {
  for (const [tool, args] of pathCalls(path)) {
    assertListed(host, tool);
    const result = await host.call(tool, args);
    const text = textOf(result);
    assertEquals(result.isError, true, `${tool} ${JSON.stringify(path)} should fail: ${text}`);
    assertMatch(text, code, `${tool} ${JSON.stringify(path)}`);
    assertFalse(text.includes(SECRET), `${tool} leaked the secret`);
    assertFalse(
      /does not exist|no such file/i.test(text),
      `${tool} told whether an outside path exists: ${text}`,
    );
  }
}

async function layout() {
  const base = await tempDir("toolhost-escape-");
  const root = `${base.path}/root`;
  const evil = `${base.path}/root-evil`;
  const outside = `${base.path}/outside`;
  for (const dir of [root, evil, outside, `${root}/sub`]) await Deno.mkdir(dir);
  await Deno.writeTextFile(`${evil}/secret.txt`, SECRET);
  await Deno.writeTextFile(`${outside}/secret.txt`, SECRET);
  await Deno.writeTextFile(`${root}/inside.txt`, "inside\n");
  return { base, root, evil, outside };
}

async function outsideUnchanged(outside: string, evil: string): Promise<void> {
  for (const dir of [outside, evil]) {
    const names = [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
    assertEquals(names, ["secret.txt"], `nothing new in ${dir}`);
    assertEquals(await Deno.readTextFile(`${dir}/secret.txt`), SECRET);
  }
}

Deno.test("escapes: the default launch over one root refuses every escape", async (t) => {
  const { base, root, evil, outside } = await layout();
  await using _base = base;
  // The links step's fixtures: each link has a name no other step uses, and no other step walks
  // the root, so the loop and the dangling links change no other step's answers.
  await Deno.symlink(`${outside}/secret.txt`, `${root}/link-file`);
  await Deno.symlink(outside, `${root}/link-dir`);
  await Deno.symlink("../../outside/secret.txt", `${root}/sub/relative-link`);
  await Deno.symlink(`${root}/loop-b`, `${root}/loop-a`);
  await Deno.symlink(`${root}/loop-a`, `${root}/loop-b`);
  await Deno.symlink(`${outside}/not-yet`, `${root}/dangling-file`);
  await Deno.symlink(`${outside}/no-dir`, `${root}/dangling-dir`);
  await using host = await launchHost({ roots: [root] });

  await t.step(
    "escapes: sibling prefix, `..` in every position, absolute paths, URLs and /proc",
    async () => {
      const paths = [
        "../root-evil/secret.txt",
        `${evil}/secret.txt`,
        `${root}-evil/secret.txt`,
        "../outside/secret.txt",
        "..",
        "../",
        "sub/../../outside/secret.txt",
        "sub/../sub/../../outside",
        "./../outside/secret.txt",
        "sub/./../../outside/secret.txt",
        "sub/..//../outside/secret.txt",
        `${root}/../outside/secret.txt`,
        `${outside}/secret.txt`,
        outside,
        "/etc/passwd",
        "/",
        `file://${outside}/secret.txt`,
        "file:///etc/passwd",
        "/proc/self/root/etc/passwd",
        "/proc/self/cwd/inside.txt",
        `/proc/self/root${outside}/secret.txt`,
        "/dev/zero",
      ];
      for (const path of paths) await expectDenied(host, path);
      await outsideUnchanged(outside, evil);
    },
  );

  await t.step(
    "escapes: symlinks to outside files and directories, loops and dangling links",
    async () => {
      for (
        const path of [
          "link-file",
          "link-dir",
          "link-dir/secret.txt",
          "sub/relative-link",
          "link-dir/../link-dir/secret.txt",
        ]
      ) {
        await expectDenied(host, path);
      }
      for (const path of ["loop-a", "loop-b/x"]) await expectDenied(host, path);
      // Writing or making a directory through a dangling link to outside.
      for (
        const [tool, args] of [
          ["write_file", { path: "dangling-file", content: "pwned" }],
          ["write_file", { path: "dangling-dir/x.txt", content: "pwned", create_parents: true }],
          ["create_directory", { path: "dangling-dir" }],
          ["create_directory", { path: "dangling-dir/sub" }],
          ["move_file", { source: "inside.txt", destination: "dangling-file" }],
          ["move_file", { source: "inside.txt", destination: "link-dir/moved.txt" }],
        ] as const
      ) {
        const result = await host.call(tool, args);
        assertMatch(textOf(result), /^path_denied: /, `${tool} ${JSON.stringify(args)}`);
      }
      // Walks over the root never show what lies behind the links.
      for (
        const [tool, args] of [
          ["get_tree", { path: "." }],
          ["grep", { path: ".", pattern: "SECRET" }],
          ["search_files", { path: ".", pattern: "secret*" }],
        ] as const
      ) {
        assertListed(host, tool);
        const text = textOf(await host.call(tool, args));
        assertFalse(text.includes(SECRET), `${tool} leaked`);
        assertFalse(text.includes("secret.txt"), `${tool} listed a file behind a link: ${text}`);
      }
      await outsideUnchanged(outside, evil);
      assertEquals(await Deno.readTextFile(`${root}/inside.txt`), "inside\n");
    },
  );

  await t.step("escapes: odd spellings are refused before touching the disk", async () => {
    const odd = [
      "inside.txt ",
      " inside.txt",
      '"inside.txt"',
      "'inside.txt'",
      "inside\t.txt",
      "inside.txt\n",
      "inside\0.txt",
      "~/inside.txt",
      "http://example.com/x",
      "a/".repeat(3000),
    ];
    for (const path of odd) {
      const result = await host.call("read_file", { path });
      assertMatch(textOf(result), /^invalid_path: /, JSON.stringify(path).slice(0, 60));
    }
    const longName = await host.call("read_file", { path: "x".repeat(300) });
    assertMatch(textOf(longName), /^invalid_path: .*too long/);
  });

  await t.step("escapes: move_file cannot pull an outside file in or push one out", async () => {
    for (
      const [source, destination] of [
        [`${outside}/secret.txt`, "pulled.txt"],
        ["../outside/secret.txt", "pulled.txt"],
        ["inside.txt", `${outside}/pushed.txt`],
        ["inside.txt", "../outside/pushed.txt"],
        ["inside.txt", "../root-evil/pushed.txt"],
        ["sub", `${outside}/sub`],
      ]
    ) {
      const text = textOf(await host.call("move_file", { source, destination }));
      assertMatch(text, /^path_denied: /, `${source} -> ${destination}`);
    }
    await outsideUnchanged(outside, evil);
    assertEquals(await Deno.readTextFile(`${root}/inside.txt`), "inside\n");
  });
});

Deno.test("escapes: hard links, FIFOs and the blacklist", async (t) => {
  const { base, root, outside } = await layout();
  await using _base = base;
  await Deno.link(`${outside}/secret.txt`, `${root}/hardlink.txt`);
  const fifo = await new Deno.Command("mkfifo", { args: [`${root}/fifo`] }).output();
  assert(fifo.success, "mkfifo");
  await Deno.writeTextFile(`${root}/history.toml`, "h");
  await Deno.writeTextFile(`${root}/sub/chat_history.toml`, "h");
  await Deno.writeTextFile(`${root}/.env`, "TOKEN=1");
  await Deno.mkdir(`${root}/secrets`);
  await Deno.writeTextFile(`${root}/secrets/key.pem`, "k");
  await using host = await launchHost({ roots: [root], file: { blacklist: [".env", "secrets"] } });

  await t.step("a file with several hard links is refused, naming the config key", async () => {
    for (const [tool, args] of pathCalls("hardlink.txt").slice(0, 6)) {
      const text = textOf(await host.call(tool, args));
      assertMatch(text, /^path_denied: .*hard links.*"allowHardlinks": true/, tool);
    }
    assertEquals(await Deno.readTextFile(`${outside}/secret.txt`), SECRET);
  });

  await t.step("a FIFO is refused without blocking", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["read_file", { path: "fifo" }],
      ["get_file_info", { path: "fifo" }],
      ["write_file", { path: "fifo", content: "x" }],
    ];
    for (const [tool, args] of calls) {
      const text = textOf(await host.call(tool, args));
      assertMatch(text, /^path_denied: .*not a regular file/, tool);
    }
  });

  await t.step("blacklisted paths are refused and hidden from listings", async () => {
    for (
      const path of [
        "history.toml",
        "sub/chat_history.toml",
        ".env",
        "secrets/key.pem",
        "secrets",
      ]
    ) {
      await expectDenied(host, path, /^path_denied: .*blacklist/);
    }
    // The state directory is hidden from reads, and protected from writes.
    for (const path of [".toolhost", ".toolhost/x"]) {
      await expectDenied(
        host,
        path,
        /^(path_denied: .*state directory|protected_path: .*toolhost's own state)/,
      );
    }
    const listing = textOf(await host.call("list_directory", { path: "." }));
    for (const name of ["history.toml", ".env", "secrets", ".toolhost"]) {
      assertFalse(listing.includes(name), name);
    }
  });

  await t.step(
    "allowHardlinks in the user's own config lets a hard-linked file be read",
    async () => {
      const user = `${base.path}/user-toolhost.json`;
      await Deno.writeTextFile(user, JSON.stringify({ allowHardlinks: true }));
      await using other = await launchHost({ roots: [root], config: user });
      assertEquals(textOf(await other.call("read_file", { path: "hardlink.txt" })), SECRET);
    },
  );

  await t.step("allowHardlinks in a config file inside the root is ignored", async () => {
    await using other = await launchHost({ roots: [root], file: { allowHardlinks: true } });
    assertMatch(textOf(await other.call("read_file", { path: "hardlink.txt" })), /^path_denied: /);
    assertMatch(other.session.stderr(), /is not trusted.*ignored "allowHardlinks"/);
  });
});

Deno.test("escapes: a second root is allowed, a sibling of it is not", async () => {
  const { base, root, outside } = await layout();
  await using _base = base;
  const second = `${base.path}/second`;
  await Deno.mkdir(second);
  await Deno.writeTextFile(`${second}/b.txt`, "second\n");
  await using host = await launchHost({ roots: [root, second] });
  assertEquals(textOf(await host.call("read_file", { path: `${second}/b.txt` })), "second\n");
  assertEquals(textOf(await host.call("read_file", { path: "../second/b.txt" })), "second\n");
  await expectDenied(host, `${outside}/secret.txt`);
  const denied = textOf(await host.call("read_file", { path: `${outside}/secret.txt` }));
  assertMatch(denied, new RegExp(`allowed roots \\(${root}, ${second}\\)`));
});
