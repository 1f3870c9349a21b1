/**
 * The user's trust list (`host/config/trust.ts`): where it lives, how it is
 * written (whole, atomically, private) and read (nothing malformed, nothing
 * from inside a root).
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import {
  readTrust,
  sha256Hex,
  type TrustRecord,
  trustStorePath,
  writeTrust,
} from "../../../host/config/trust.ts";
import { withEnv } from "./_env.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);

/** A record for a path and hash. */
function record(path: string, sha256: string): TrustRecord {
  return { path, sha256, trustedAt: "2025-01-02T03:04:05.000Z" };
}

/** The records as written in the file, read back without the module. */
async function onDisk(store: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(store)).trusted;
}

Deno.test("trustStorePath is under XDG_CONFIG_HOME, else HOME/.config, else none", async (t) => {
  await t.step("XDG_CONFIG_HOME wins", async () => {
    await withEnv({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/u" }, () => {
      assertEquals(trustStorePath(), "/x/cfg/toolhost/trusted.json");
    });
  });
  await t.step("unset or empty XDG_CONFIG_HOME: HOME/.config", async () => {
    await withEnv({ XDG_CONFIG_HOME: undefined, HOME: "/home/u" }, () => {
      assertEquals(trustStorePath(), "/home/u/.config/toolhost/trusted.json");
    });
    await withEnv({ XDG_CONFIG_HOME: "", HOME: "/home/u" }, () => {
      assertEquals(trustStorePath(), "/home/u/.config/toolhost/trusted.json");
    });
  });
  await t.step("neither set: none", async () => {
    await withEnv({ XDG_CONFIG_HOME: undefined, HOME: undefined }, () => {
      assertEquals(trustStorePath(), null);
    });
  });
});

Deno.test("sha256Hex is the SHA-256 of the bytes in hex", async () => {
  // FIPS 180-2's test vector for "abc".
  assertEquals(
    await sha256Hex(new TextEncoder().encode("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("writeTrust adds, replaces and forgets records, atomically and privately", async (t) => {
  await using home = await tempDir();
  const dir = `${home.path}/cfg/toolhost`;
  const store = `${dir}/trusted.json`;

  await t.step("adding to no list makes one, and says no record was there", async () => {
    assertEquals(await writeTrust(store, { add: record("/p/one", A) }), false);
    assertEquals(await onDisk(store), [record("/p/one", A)]);
  });
  await t.step("the list is mode 0600 in a directory of mode 0700", async () => {
    assertEquals((await Deno.stat(store)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
  });
  await t.step("adding another path keeps the first", async () => {
    assertEquals(await writeTrust(store, { add: record("/p/two", B) }), false);
    assertEquals(await onDisk(store), [record("/p/one", A), record("/p/two", B)]);
  });
  await t.step("adding a path again replaces its record, and says one was there", async () => {
    assertEquals(await writeTrust(store, { add: record("/p/one", B) }), true);
    assertEquals(await onDisk(store), [record("/p/two", B), record("/p/one", B)]);
  });
  await t.step("forgetting removes the path's record and says whether there was one", async () => {
    assertEquals(await writeTrust(store, { forget: "/p/two" }), true);
    assertEquals(await onDisk(store), [record("/p/one", B)]);
    assertEquals(await writeTrust(store, { forget: "/p/two" }), false);
    assertEquals(await onDisk(store), [record("/p/one", B)]);
  });
  await t.step(
    "each write puts a new file in place rather than rewriting the old one",
    async () => {
      const before = (await Deno.stat(store)).ino;
      await writeTrust(store, { add: record("/p/one", A) });
      assert(before !== null && (await Deno.stat(store)).ino !== before, "a new inode");
      assertEquals(await onDisk(store), [record("/p/one", A)]);
    },
  );
  await t.step("no temporary file is left beside the list", async () => {
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assertEquals(names, ["trusted.json"]);
    assertEquals((await Deno.stat(store)).mode! & 0o777, 0o600, "still private after rewrites");
  });
  await t.step("a malformed list is replaced by a well-formed one", async () => {
    await Deno.writeTextFile(store, "{not json");
    assertEquals(await writeTrust(store, { add: record("/p/three", A) }), false);
    assertEquals(await onDisk(store), [record("/p/three", A)]);
  });
});

Deno.test("readTrust returns only well-formed records, and none from a list inside a root", async (t) => {
  await using home = await tempDir();
  await using root = await tempDir();
  const store = `${home.path}/trusted.json`;

  await t.step("a missing list trusts nothing", async () => {
    assertEquals(await readTrust(store, [root.path]), []);
  });
  await t.step("malformed records are skipped, well-formed ones kept", async () => {
    const good = record("/p/good", A);
    const trusted = [
      good,
      { path: "/p/upper", sha256: A.toUpperCase(), trustedAt: "t" },
      { path: "/p/short", sha256: "abc", trustedAt: "t" },
      { path: "/p/no-date", sha256: A },
      { path: 1, sha256: A, trustedAt: "t" },
      { sha256: A, trustedAt: "t" },
      null,
      "/p/string",
      [good.path, good.sha256],
    ];
    await Deno.writeTextFile(store, JSON.stringify({ trusted }));
    assertEquals(await readTrust(store, [root.path]), [good]);
  });
  await t.step("a malformed list trusts nothing", async () => {
    for (const text of ["{not json", "null", "[]", '{"trusted": "x"}', '{"trusted": {}}', ""]) {
      await Deno.writeTextFile(store, text);
      assertEquals(await readTrust(store, [root.path]), [], text);
    }
  });
  await t.step("a list inside a root trusts nothing, even reached through a link", async () => {
    const inside = `${root.path}/cfg/trusted.json`;
    await writeTrust(inside, { add: record("/p/good", A) });
    assertEquals((await readTrust(inside, [])).length, 1, "the list itself is well-formed");
    assertEquals(await readTrust(inside, [root.path]), []);
    await Deno.symlink(`${root.path}/cfg`, `${home.path}/link`);
    assertEquals(await readTrust(`${home.path}/link/trusted.json`, [root.path]), []);
    assert((await readTrust(`${home.path}/link/trusted.json`, [])).length === 1);
  });
});
