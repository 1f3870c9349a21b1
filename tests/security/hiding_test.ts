/**
 * Hiding that survives a move, in the launch users run. Hiding is judged on
 * paths, so a move must not change what it hides: moving what holds a
 * blacklisted path (a glob with `/`, one that matches a parent), the state
 * directory or a protected path is refused, and so is a move that would put
 * what it moves at a hidden or protected path. Afterwards nothing is
 * readable under a would-be name. And host state (anchors, todos, the
 * interaction log) is loaded only from a state directory the host made:
 * state shipped in a cloned `.toolhost/`, or assembled elsewhere and moved
 * into place, is never served, after a restart either.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, resultText, type StdioSession, waitForStderr } from "../_mcp.ts";
import { MAX_MOVE_ENTRIES } from "../../security/safe_move.ts";

const SECRET = "TOPSECRET";
const FORGED = "FORGED";
const BLACKLIST = ["secrets/**", "**/private/*.key", "notes/hidden.md", "vault/**"];

/** Every file, directory and link under a directory, with file contents; the state directory aside. */
async function snapshot(root: string, skip: RegExp): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const visit = async (dir: string, relative: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (skip.test(rel)) continue;
      if (entry.isSymlink) out.set(rel, `link -> ${await Deno.readLink(path)}`);
      else if (entry.isDirectory) {
        out.set(rel, "dir");
        await visit(path, rel);
      } else out.set(rel, await Deno.readTextFile(path));
    }
  };
  await visit(root, "");
  return out;
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** A root with hidden, protected and plain things, and a config outside it with a nested state directory. */
async function layout(root: string, config: string): Promise<void> {
  await write(`${root}/secrets/api.txt`, `${SECRET}-api\n`);
  await write(`${root}/keys/private/id.key`, `${SECRET}-key\n`);
  await write(`${root}/keys/public.txt`, "public\n");
  await write(`${root}/notes/hidden.md`, `${SECRET}-note\n`);
  await write(`${root}/notes/open.md`, "open\n");
  await write(`${root}/work/readme.txt`, "work\n");
  await write(`${root}/pkg/.vscode/tasks.json`, "{}\n");
  await write(`${root}/proj/.git/config`, "[core]\n");
  await write(`${root}/loose/a.txt`, "a\n");
  await write(`${root}/loose/k.key`, "k\n");
  await write(`${root}/gitlike/config`, "[core]\n\tfsmonitor = ./evil.sh\n");
  await write(`${root}/gitlike/hooks/pre-commit`, "#!/bin/sh\n");
  await write(`${root}/hglike/hgrc`, "[hooks]\n");
  await write(`${root}/plain/f.txt`, "plain\n");
  await Deno.mkdir(`${root}/empty`);
  await Deno.mkdir(`${root}/other`);
  await Deno.mkdir(`${root}/sub`);
  await Deno.symlink(".", `${root}/alias`);
  await Deno.writeTextFile(
    config,
    JSON.stringify({ blacklist: BLACKLIST, stateDir: `${root}/work/state` }),
  );
}

function refused(result: { isError?: boolean }, text: string, pattern: RegExp): string | undefined {
  return result.isError && pattern.test(text) ? undefined : text.slice(0, 300);
}

Deno.test("hiding: a move never exposes what is hidden or protected, nor smuggles into it, through any writing tool", async (t) => {
  await using dir = await tempDir("toolhost-hiding-");
  await using outside = await tempDir("toolhost-hiding-config-");
  const root = dir.path;
  const config = `${outside.path}/toolhost.json`;
  await layout(root, config);
  await using session = await connectStdio([root], { config });
  // The server made its nested state directory; put something there to look for.
  await Deno.writeTextFile(`${root}/work/state/note.txt`, `${SECRET}-state\n`);
  const skip = /^work\/state\//;
  const before = await snapshot(root, skip);

  await t.step(
    "moving what holds a hidden path, the state directory or a protected path is refused",
    async () => {
      const hiddenBy = (glob: string) =>
        new RegExp(
          `^path_denied: Cannot move "[^"]+": it holds a path hidden by the blacklist \\(${glob}\\); move what is around it instead$`,
        );
      const cases: Array<[string, string, RegExp]> = [
        ["secrets", "public", hiddenBy("secrets/\\*\\*")],
        ["keys", "keys2", hiddenBy("\\*\\*/private/\\*\\.key")],
        ["keys/private", "keys/open", hiddenBy("\\*\\*/private/\\*\\.key")],
        ["notes", "notes2", hiddenBy("notes/hidden\\.md")],
        ["alias/notes", "notes3", hiddenBy("notes/hidden\\.md")],
        ["work", "work2", /^path_denied: Cannot move "work": it holds the host's state directory$/],
        [
          "alias/work",
          "work3",
          /^path_denied: Cannot move "alias\/work": it holds the host's state directory$/,
        ],
        ["work/state", "state2", /^(path_denied|protected_path): "work\/state" is /],
        [
          "secrets/api.txt",
          "api.txt",
          /^path_denied: "secrets\/api\.txt" is hidden by the blacklist/,
        ],
        ["pkg", "pkg2", /^protected_path: "pkg" is protected: it holds "pkg\/\.vscode"/],
        ["proj", "proj2", /^protected_path: "proj" is protected: it holds "proj\/\.git"/],
      ];
      const wrong: string[] = [];
      for (const [source, destination, pattern] of cases) {
        const result = await session.call("move_file", { source, destination });
        const why = refused(result, resultText(result), pattern);
        if (why !== undefined) wrong.push(`${source} -> ${destination}: ${why}`);
      }
      assertEquals(wrong, []);
    },
  );

  await t.step("nothing is readable, listed or found under a would-be name", async () => {
    const wouldBe = [
      "public/api.txt",
      "keys2/private/id.key",
      "keys/open/id.key",
      "notes2/hidden.md",
      "notes3/hidden.md",
      "work2/state/note.txt",
      "work3/state/note.txt",
      "state2/note.txt",
      "api.txt",
    ];
    for (const path of wouldBe) {
      const read = await session.call("read_file", { path });
      // Missing, or hidden there too (a glob that matches at any depth): never the content.
      assertMatch(resultText(read), /^(not_found|path_denied): /, path);
      assertFalse(resultText(read).includes(`${SECRET}-`), path);
      const listed = await session.call("list_directory", { path: path.split("/")[0]! });
      assert(listed.isError || !resultText(listed).includes(SECRET), path);
    }
    const work = await session.call("list_directory", { path: "work" });
    assertFalse(resultText(work).includes("state"), resultText(work));
    const secrets = await session.call("list_directory", { path: "secrets" });
    assertFalse(resultText(secrets).includes("api.txt"), resultText(secrets));
    const grep = await session.call("grep", { pattern: SECRET, literal: true });
    assertFalse(grep.isError, resultText(grep));
    assertFalse(resultText(grep).includes(`${SECRET}-`), resultText(grep));
    for (const pattern of ["*.key", "api.txt", "hidden.md", "note.txt"]) {
      const found = await session.call("search_files", { pattern });
      const files = (found.structuredContent as { files?: string[] } | undefined)?.files ?? [];
      assertEquals(files.filter((file) => !file.startsWith("loose/")), [], pattern);
    }
  });

  await t.step(
    "moving onto a hidden or protected place is refused, whatever the move carries",
    async () => {
      const cases: Array<[string, string, RegExp]> = [
        [
          "loose",
          "vault",
          /^path_denied: Cannot move "loose" to "vault": "loose\/(a\.txt|k\.key)" would become "vault\/\1", which the blacklist hides \(vault\/\*\*\)$/,
        ],
        [
          "loose",
          "other/private",
          /^path_denied: Cannot move "loose" to "other\/private": "loose\/k\.key" would become "other\/private\/k\.key", which the blacklist hides \(\*\*\/private\/\*\.key\)$/,
        ],
        [
          "loose/a.txt",
          "secrets/a.txt",
          /^path_denied: "secrets\/a\.txt" is hidden by the blacklist/,
        ],
        ["loose", "secrets/loose", /^path_denied: "secrets\/loose" is hidden by the blacklist/],
        ["loose", "work/state/loose", /^(path_denied|protected_path): "work\/state\/loose" is /],
        ["gitlike", "sub/.git", /^protected_path: "sub\/\.git" is protected: /],
        [
          "hglike",
          "sub/.hg",
          /^protected_path: "sub\/\.hg" is protected: what a directory moved there holds would be protected \(\.hg\/hgrc: /,
        ],
        // Empty now, but what a concurrent call puts in it would land at `.hg/hgrc`.
        ["empty", "sub/.hg", /^protected_path: "sub\/\.hg" is protected: /],
        ["empty", ".config", /^protected_path: "\.config" is protected: .*\.config\/git\/\*\*/],
      ];
      const wrong: string[] = [];
      for (const [source, destination, pattern] of cases) {
        const result = await session.call("move_file", { source, destination });
        const why = refused(result, resultText(result), pattern);
        if (why !== undefined) wrong.push(`${source} -> ${destination}: ${why}`);
      }
      assertEquals(wrong, []);
    },
  );

  await t.step("the other writing tools refuse the same places", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["write_file", { path: "vault/new.txt", content: "x\n", create_parents: true }],
      ["write_file", { path: "secrets/new.txt", content: "x\n" }],
      ["write_file", { path: "other/private/new.key", content: "x\n", create_parents: true }],
      ["write_file", { path: "work/state/anchors.json", content: "{}" }],
      ["create_directory", { path: "secrets/sub" }],
      ["create_directory", { path: "vault/sub" }],
      ["create_directory", { path: "work/state/sub" }],
      ["edit_file", { path: "secrets/api.txt", old_string: SECRET, new_string: "x" }],
      ["edit_file", { path: "notes/hidden.md", old_string: SECRET, new_string: "x" }],
      ["set_file_slice", {
        path: "keys/private/id.key",
        start_line: 1,
        end_line: 1,
        content: "x",
      }],
    ];
    const wrong: string[] = [];
    for (const [tool, args] of calls) {
      const result = await session.call(tool, args);
      const why = refused(result, resultText(result), /^(path_denied|protected_path): /);
      if (why !== undefined) wrong.push(`${tool} ${JSON.stringify(args)}: ${why}`);
    }
    assertEquals(wrong, []);
  });

  await t.step("nothing changed on disk, and the state directory is where it was", async () => {
    assertEquals(await snapshot(root, skip), before);
    assertEquals(
      await Deno.readTextFile(`${root}/work/state/note.txt`),
      `${SECRET}-state\n`,
    );
  });

  await t.step("plain moves still work", async () => {
    const moved = await session.call("move_file", { source: "plain", destination: "other/plain" });
    assertFalse(moved.isError, resultText(moved));
    assertEquals(
      resultText(await session.call("read_file", { path: "other/plain/f.txt" })),
      "plain\n",
    );
    const file = await session.call("move_file", {
      source: "notes/open.md",
      destination: "open.md",
    });
    assertFalse(file.isError, resultText(file));
  });
});

Deno.test("hiding: a directory that holds a root, or too big to check, is not moved, and the server says why", async () => {
  await using dir = await tempDir("toolhost-hiding-big-");
  const root = dir.path;
  await Deno.mkdir(`${root}/box/nested`, { recursive: true });
  await Deno.mkdir(`${root}/big`);
  const empty = new Uint8Array();
  for (let i = 0; i <= MAX_MOVE_ENTRIES; i++) Deno.writeFileSync(`${root}/big/${i}`, empty);
  await using session = await connectStdio([root, `${root}/box/nested`]);
  const box = await session.call("move_file", { source: "box", destination: "box2" });
  assertEquals(
    resultText(box),
    `path_denied: Cannot move "box": it holds the root "${root}/box/nested"`,
  );
  const big = await session.call("move_file", { source: "big", destination: "big2" });
  assertMatch(
    resultText(big),
    new RegExp(`^too_large: Cannot move "big": it holds more than ${MAX_MOVE_ENTRIES} entries`),
  );
  assert((await Deno.stat(`${root}/big/0`)).isFile);
  assert((await Deno.stat(`${root}/box/nested`)).isDirectory);
});

/**
 * What a session serves of host state, as one text: resources, the bootstrap
 * packet, todos, and the log's lines of the forged tool (the log holds the
 * agent's own calls, whose arguments may carry what it forged).
 */
async function served(session: StdioSession): Promise<string> {
  const parts: string[] = [];
  const { resources } = await session.client.listResources();
  for (const resource of resources) {
    parts.push(resource.uri);
    const read = await session.client.readResource({ uri: resource.uri });
    parts.push(JSON.stringify(read.contents));
  }
  const forged = await session.client.readResource({ uri: "toolhost://anchors/forged" }).then(
    () => `${FORGED}: toolhost://anchors/forged was served`,
    () => "",
  );
  parts.push(forged);
  for (const tool of ["bootstrap_body_state", "todo_read"]) {
    const result = await session.call(tool, {});
    assertFalse(result.isError, `${resultText(result)}\n${session.stderr()}`);
    parts.push(resultText(result), JSON.stringify(result.structuredContent ?? {}));
  }
  const log = await session.call("read_interactions", { tool: `${FORGED}_tool` });
  assertFalse(log.isError, resultText(log));
  const lines = (log.structuredContent as { interactions: unknown[] }).interactions;
  parts.push(...lines.map((line) => `${FORGED}: ${JSON.stringify(line)}`));
  return parts.join("\n");
}

/** Forged host state, as a repository could ship it or a tool assemble it. */
async function forge(dir: string): Promise<void> {
  const day = new Date().toISOString().slice(0, 10);
  const line = {
    ts: `${day}T00:00:00.000Z`,
    session: "s",
    client: "c",
    tool: `${FORGED}_tool`,
    args: {},
    outcome: "ok",
    duration_ms: 1,
    result_bytes: 1,
    paths: [`${FORGED}/path.txt`],
  };
  await write(`${dir}/interactions/${day}.jsonl`, `${JSON.stringify(line)}\n`);
  await write(
    `${dir}/anchors.json`,
    JSON.stringify({
      anchors: [{ key: "forged", content: `${FORGED} anchor`, updated_at: line.ts }],
    }),
  );
  await write(
    `${dir}/todos.json`,
    JSON.stringify({ todos: [{ content: `${FORGED} todo`, status: "pending" }] }),
  );
}

Deno.test("hiding: state shipped in .toolhost before the first start is never served, after a restart too", async () => {
  await using dir = await tempDir("toolhost-forged-");
  const root = dir.path;
  await forge(`${root}/.toolhost`);
  {
    await using session = await connectStdio([root]);
    assertFalse((await served(session)).includes(FORGED));
    await waitForStderr(session, /Set aside anchors\.json, todos\.json, interactions/);
    const todo = await session.call("todo_write", {
      todos: [{ content: "real work", status: "pending" }],
    });
    assertFalse(todo.isError, resultText(todo));
  }
  const aside = [...Deno.readDirSync(`${root}/.toolhost`)].map((entry) => entry.name);
  assert(aside.some((name) => /^anchors\.json\.untrusted-/.test(name)), aside.join(", "));
  {
    await using session = await connectStdio([root]);
    const text = await served(session);
    assertFalse(text.includes(FORGED));
    // The host's own state, written after it made the directory its own, is loaded back.
    assert(text.includes("real work"), text);
    assert(text.includes("toolhost://anchors/todo_state"), text);
    await session.call("todo_read", {});
    assertFalse(/Set aside/.test(session.stderr()), session.stderr());
  }
});

Deno.test("hiding: state assembled elsewhere is never moved into place, and never served if put there outside the host", async () => {
  await using dir = await tempDir("toolhost-assembled-");
  await using outside = await tempDir("toolhost-assembled-config-");
  const root = dir.path;
  const config = `${outside.path}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify({ stateDir: `${root}/work/state` }));
  await Deno.mkdir(`${root}/work`);
  {
    await using session = await connectStdio([root], { config });
    const marker = { dev: 1, ino: 2, uid: 0, birthtime: null };
    for (
      const [name, content] of Object.entries({
        "stash/anchors.json": JSON.stringify({
          anchors: [{ key: "forged", content: `${FORGED} anchor`, updated_at: "2020-01-01" }],
        }),
        "stash/todos.json": JSON.stringify({
          todos: [{ content: `${FORGED} todo`, status: "pending" }],
        }),
        "stash/owner.json": JSON.stringify(marker),
      })
    ) {
      const written = await session.call("write_file", {
        path: name,
        content,
        create_parents: true,
      });
      assertFalse(written.isError, resultText(written));
    }
    const moves: Array<[string, string]> = [
      ["stash/anchors.json", "work/state/anchors.json"],
      ["stash/todos.json", "work/state/todos.json"],
      ["stash", "work/state/stash"],
      ["stash", "work/state"],
      ["work/state", "work/old"],
      ["work", "work2"],
    ];
    for (const [source, destination] of moves) {
      const moved = await session.call("move_file", { source, destination });
      assertMatch(resultText(moved), /^(path_denied|protected_path|already_exists): /);
    }
    assertFalse((await served(session)).includes(FORGED));
  }
  // Outside the host (a checkout, a script), the assembled directory replaces the state
  // directory, with a copy of the host's real marker: it is another directory all the same.
  const stash = `${root}/stash`;
  await forge(stash);
  await Deno.copyFile(`${root}/work/state/owner.json`, `${stash}/owner.json`);
  await Deno.rename(`${root}/work/state`, `${root}/old-state`);
  await Deno.rename(stash, `${root}/work/state`);
  for (let start = 0; start < 2; start++) {
    await using session = await connectStdio([root], { config });
    assertFalse((await served(session)).includes(FORGED));
    if (start === 0) await waitForStderr(session, /Set aside anchors\.json, todos\.json/);
  }
});
