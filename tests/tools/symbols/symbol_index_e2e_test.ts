/**
 * The symbol index in the launch users run (`tests/_mcp.ts`): a warm
 * `find_usages` answers from what the worker kept, yet sees every change —
 * made through toolhost's own tools, or by anything else (an editor, git) the
 * instant before the call: a changed file, a new one, a new directory, a
 * deleted file. After a restart the index and facts kept in the state
 * directory are read back, and a file changed while the host was down is
 * read again.
 */

import type { CallToolResult } from "@modelcontextprotocol/client";
import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText } from "../../_mcp.ts";

const CORE = "def helper(x):\n    return x\n";
const USE = "from pkg.core import helper\n\nhelper(1)\n";
const PROSE = '"""The helper is documented here, never called."""\n';
const TARGET = { path: "pkg/core.py", name: "helper" };

/** The sites `find_usages` lists (its first page), as `path:line`, and the files it searched. */
function sitesOf(result: CallToolResult): { sites: string[]; searched: number } {
  return { sites: pageOf(result).sites, searched: pageOf(result).searched };
}

/** The first page of sites, how many there are in all, and the files searched. */
function pageOf(result: CallToolResult): { sites: string[]; total: number; searched: number } {
  assert(!result.isError, resultText(result));
  const data = result.structuredContent as {
    sites: Array<{ path: string; line: number }>;
    total: number;
    files_searched: number;
  };
  return {
    sites: data.sites.map((site) => `${site.path}:${site.line}`).sort(),
    total: data.total,
    searched: data.files_searched,
  };
}

Deno.test("find_usages answers from its index and sees every change, in the launch users run", async (t) => {
  await using root = await tempDir();
  const at = (path: string) => `${root.path}/${path}`;
  await Deno.mkdir(at("pkg"));
  await Deno.writeTextFile(at("pkg/__init__.py"), "");
  await Deno.writeTextFile(at("pkg/core.py"), CORE);
  await Deno.writeTextFile(at("pkg/use.py"), USE);
  await Deno.writeTextFile(at("pkg/prose.py"), PROSE);

  {
    await using session = await connectStdio([root.path]);
    const usages = async () => sitesOf(await session.call("find_usages", TARGET));

    await t.step("the first call: every file searched, prose is no site", async () => {
      assertEquals(await usages(), {
        sites: ["pkg/core.py:1", "pkg/use.py:1", "pkg/use.py:3"],
        searched: 4,
      });
    });

    await t.step("a change through write_file is seen by the next call", async () => {
      const written = await session.call("write_file", {
        path: "pkg/use.py",
        content: `${USE}helper(2)\n`,
      });
      assert(!written.isError, resultText(written));
      assertEquals((await usages()).sites, [
        "pkg/core.py:1",
        "pkg/use.py:1",
        "pkg/use.py:3",
        "pkg/use.py:4",
      ]);
    });

    await t.step("a change made outside toolhost the instant before is seen", async () => {
      await Deno.writeTextFile(at("pkg/use.py"), `${USE}helper(2)\nhelper(3)\n`);
      assertEquals((await usages()).sites.filter((site) => site.startsWith("pkg/use.py")), [
        "pkg/use.py:1",
        "pkg/use.py:3",
        "pkg/use.py:4",
        "pkg/use.py:5",
      ]);
    });

    await t.step("a new file, and a file in a new directory, are seen", async () => {
      await Deno.writeTextFile(at("pkg/fresh.py"), USE);
      await Deno.mkdir(at("pkg/sub"));
      await Deno.writeTextFile(at("pkg/sub/__init__.py"), "");
      await Deno.writeTextFile(at("pkg/sub/deep.py"), USE);
      const found = await usages();
      assertEquals(found.searched, 7);
      for (const site of ["pkg/fresh.py:3", "pkg/sub/deep.py:3"]) {
        assert(found.sites.includes(site), `${site} in ${found.sites.join(", ")}`);
      }
    });

    await t.step("a burst of changes while the worker sleeps is seen whole", async () => {
      // Thirty known files, each in a directory of its own (a report of one file marks only
      // its directory), changed while the worker sleeps between calls.
      for (let i = 0; i < 30; i++) {
        await Deno.mkdir(at(`pkg/many/d${i}`), { recursive: true });
        await Deno.writeTextFile(at(`pkg/many/d${i}/m.py`), USE);
      }
      const total = async () => pageOf(await session.call("find_usages", TARGET)).total;
      const before = await total();
      for (let i = 0; i < 30; i++) {
        await Deno.writeTextFile(at(`pkg/many/d${i}/m.py`), `${USE}helper(${i})\n`);
      }
      assertEquals(await total(), before + 30);
      await Deno.remove(at("pkg/many"), { recursive: true });
    });

    await t.step("a deleted file's sites are gone", async () => {
      await Deno.remove(at("pkg/fresh.py"));
      const found = await usages();
      assertEquals(found.searched, 6);
      assert(!found.sites.some((site) => site.startsWith("pkg/fresh.py")), found.sites.join(", "));
    });

    await t.step(
      "a kept answer is not given again once what it looked up moved, even where the name is not spelled",
      async () => {
        const exact = async () => {
          const result = await session.call("find_usages", TARGET);
          assert(!result.isError, resultText(result));
          const { sites } = result.structuredContent as {
            sites: Array<{ path: string; line: number; certainty: string }>;
          };
          return sites.filter((site) => site.certainty === "exact")
            .map((site) => `${site.path}:${site.line}`).sort();
        };
        const kept = await exact();
        assert(kept.includes("pkg/use.py:3"), kept.join(", "));
        assertEquals(await exact(), kept);
        // A package beside the module, spelling no `helper`: `from pkg.core import helper` now
        // means the package (Python's order), so use.py's calls are no longer core.py's helper.
        await Deno.mkdir(at("pkg/core"));
        await Deno.writeTextFile(at("pkg/core/__init__.py"), "x = 1\n");
        assertEquals((await exact()).filter((site) => site.startsWith("pkg/use.py")), []);
        await Deno.remove(at("pkg/core"), { recursive: true });
        assertEquals(await exact(), kept);
      },
    );
  }

  await t.step("the index and the facts are kept in the state directory", async () => {
    assert((await Deno.stat(at(".toolhost/symbol-words.bin"))).isFile);
    const facts = await Array.fromAsync(Deno.readDir(at(".toolhost/symbol-facts")));
    assert(facts.length >= 3, `${facts.length} facts files`);
  });

  await t.step("after a restart, the index is brought up to date before any call", async () => {
    const index = at(".toolhost/symbol-words.bin");
    const saved = (await Deno.stat(index)).mtime!.getTime();
    await Deno.writeTextFile(at("pkg/sub/deep.py"), `${USE}helper(8)\n`);
    await using _session = await connectStdio([root.path]);
    // The first worker learns the changed file's words in the background and saves the index.
    const deadline = Date.now() + 60_000;
    while ((await Deno.stat(index)).mtime!.getTime() === saved) {
      assert(Date.now() < deadline, "the index was not brought up to date within a minute");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  await t.step(
    "after a restart, a file changed while the host was down is read again",
    async () => {
      await Deno.writeTextFile(at("pkg/sub/deep.py"), `${USE}helper(9)\n`);
      await using session = await connectStdio([root.path]);
      const found = sitesOf(await session.call("find_usages", TARGET));
      assertEquals(found.searched, 6);
      assertEquals(found.sites.filter((site) => site.startsWith("pkg/sub/")), [
        "pkg/sub/deep.py:1",
        "pkg/sub/deep.py:3",
        "pkg/sub/deep.py:4",
      ]);
      assertEquals(found.sites.length, 8, "core 1, use 4, deep 3");
    },
  );
});
