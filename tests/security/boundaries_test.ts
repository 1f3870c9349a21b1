/**
 * Each boundary tested with the other switched off.
 *
 * - Outer alone: raw Deno calls inside a tool worker (no resolver) against
 *   `..`, absolute and other outside paths: Deno refuses them, although this
 *   test process itself runs with --allow-all.
 * - Inner alone: the resolver and safe I/O in this process (broad Deno
 *   permissions): symlinks, loops and swaps are refused.
 */

import { assert, assertEquals, assertMatch, assertRejects } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { Anchor } from "../../security/anchored.ts";
import { ToolError } from "../../security/errors.ts";
import { resolvePolicy } from "../../security/policy.ts";
import { Resolver } from "../../security/resolver.ts";
import { SafeFs } from "../../security/safe_fs.ts";
import { WorkerPool } from "../../host/workers/pool.ts";

/**
 * The kernel's Landlock ABI, asked by this test itself rather than by
 * `security/landlock.ts`: `landlock_create_ruleset(NULL, 0,
 * LANDLOCK_CREATE_RULESET_VERSION)` (syscall 444 on x86-64 and arm64) returns
 * it, and fails where the kernel lacks Landlock or has it switched off. Where
 * securityfs is mounted, its list of active LSMs must agree.
 */
function kernelLandlockAbi(): number {
  const libc = Deno.dlopen("libc.so.6", {
    syscall: { parameters: ["i64", "pointer", "usize", "u32"], result: "i64" },
  });
  let abi: number;
  try {
    abi = Math.max(0, Number(libc.symbols.syscall(444n, null, 0n, 1)));
  } finally {
    libc.close();
  }
  let lsm: string | undefined;
  try {
    lsm = Deno.readTextFileSync("/sys/kernel/security/lsm");
  } catch {
    // securityfs is not mounted here (containers): the system call alone says.
  }
  if (lsm !== undefined) {
    assertEquals(lsm.split(",").includes("landlock"), abi > 0, `LSMs "${lsm}", ABI ${abi}`);
  }
  return abi;
}

async function fixture() {
  const base = await tempDir("toolhost-boundary-");
  const root = `${base.path}/root`;
  const outside = `${base.path}/outside`;
  // A sibling whose name starts with the root's: a bare prefix check would take it for inside.
  const evil = `${base.path}/root-evil`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  await Deno.mkdir(evil);
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
  await Deno.writeTextFile(`${evil}/secret.txt`, "secret");
  await Deno.writeTextFile(`${root}/inside.txt`, "inside");
  await Deno.symlink(`${outside}/secret.txt`, `${root}/link`);
  return { base, root, outside, evil };
}

Deno.test("outer boundary alone: the tool worker's Deno permissions refuse outside paths even under -A", async () => {
  const { base, root, outside, evil } = await fixture();
  await using _base = base;
  assertEquals(
    Deno.permissions.querySync({ name: "read" }).state,
    "granted",
    "this test runs with -A",
  );
  const policy = await resolvePolicy({ roots: [root] });
  const pool = await WorkerPool.start(policy, {
    size: 1,
    registry: {},
    ripgrep: { path: null, reason: "switched off (ripgrep: off)" },
    callTimeoutMs: 10_000,
    logger: { log: () => {} },
  });
  try {
    for (
      const target of [
        `${root}/../outside/secret.txt`,
        `${root}/./../outside/secret.txt`,
        `${outside}/secret.txt`,
        "/etc/passwd",
        `/proc/self/root${outside}/secret.txt`,
        `${root}-evil/secret.txt`,
        `${root}/../root-evil/secret.txt`,
      ]
    ) {
      assertEquals(await pool.probe("read", target), "NotCapable", `read ${target}`);
    }
    assertEquals(await pool.probe("write", `${root}/../outside/new.txt`), "NotCapable");
    assertEquals(await pool.probe("write", `${outside}/new.txt`), "NotCapable");
    assertEquals(await pool.probe("write", `${root}-evil/new.txt`), "NotCapable");
    assertEquals(await pool.probe("run", "/bin/sh"), "NotCapable");
    assertEquals(await pool.probe("net", "127.0.0.1"), "NotCapable");
    assertEquals(await pool.probe("env", "HOME"), "NotCapable");
    // Inside the roots the worker can read and write.
    assertEquals(await pool.probe("read", `${root}/inside.txt`), null);
    // Why more is needed: Deno's permissions follow a symlink that sits inside an allowed
    // directory (only Landlock may stop the read, where the thread that runs it is confined:
    // asynchronous operations run on a pool of threads, some made before confinement)...
    const throughLink = await pool.probe("read", `${root}/link`);
    assert(throughLink !== "NotCapable", `Deno's permissions refused ${root}/link`);
    // ...but where the kernel has Landlock, the worker's own thread cannot open it, nor create through it.
    const abi = kernelLandlockAbi();
    assertEquals(
      pool.landlock.active,
      abi > 0,
      `the kernel's ABI is ${abi}: ${pool.landlock.reason}`,
    );
    if (abi === 0) {
      // The kernel has no Landlock: nothing below can be tested here, and CI must have it.
      assert(Deno.env.get("CI") !== "true", "CI runs on a kernel with Landlock");
      // deno-lint-ignore no-console
      console.log("Landlock is not in this kernel: its confinement of the worker is untested here");
    }
    if (abi > 0) {
      assertEquals(pool.landlock.abi, abi, "the ABI the worker reports is the kernel's");
      assertEquals(await pool.probe("read_sync", `${root}/link`), "PermissionDenied");
      await Deno.symlink(outside, `${root}/dirlink`);
      assertEquals(await pool.probe("write_sync", `${root}/dirlink/new.txt`), "PermissionDenied");
      assertEquals(await pool.probe("read_sync", `${root}/inside.txt`), null);
      // The reads' own calls to libc have no Deno check in the way: the kernel alone holds them.
      assert(pool.landlock.nativeReads, "a confined worker reads through libc");
      for (
        const target of [
          `${root}/link`,
          `${root}/dirlink/secret.txt`,
          `${root}/../outside/secret.txt`,
          `${outside}/secret.txt`,
          "/etc/passwd",
        ]
      ) {
        assertEquals(await pool.probe("read_native", target), "Refused", `libc read ${target}`);
      }
      assertEquals(await pool.probe("read_native", `${root}/inside.txt`), null);
    }
    assertEquals([...Deno.readDirSync(outside)].map((e) => e.name), ["secret.txt"]);
    assertEquals([...Deno.readDirSync(evil)].map((e) => e.name), ["secret.txt"]);
  } finally {
    pool.close();
  }
});

Deno.test("inner boundary alone: the resolver refuses symlinks out with broad Deno permissions", async (t) => {
  const { base, root, outside } = await fixture();
  await using _base = base;
  await Deno.symlink(outside, `${root}/dirlink`);
  await Deno.symlink(`${root}/loop2`, `${root}/loop1`);
  await Deno.symlink(`${root}/loop1`, `${root}/loop2`);
  const policy = await resolvePolicy({ roots: [root] });
  const resolver = new Resolver(policy);
  const fs = new SafeFs(resolver, new Anchor(policy.roots));

  await t.step("symlinks to outside files and directories", async () => {
    for (const path of ["link", "dirlink", "dirlink/secret.txt"]) {
      const error = await assertRejects(() => resolver.resolve(path), ToolError);
      assertMatch(error.message, /outside the allowed roots/);
    }
    await assertRejects(
      () => fs.write("link", new TextEncoder().encode("x")),
      ToolError,
      "outside",
    );
    assertEquals(await Deno.readTextFile(`${outside}/secret.txt`), "secret");
  });

  await t.step("loops", async () => {
    const error = await assertRejects(() => resolver.resolve("loop1"), ToolError);
    assertMatch(error.message, /loop/);
  });

  await t.step("a directory swapped for a symlink after the check is caught at open", async () => {
    await Deno.mkdir(`${root}/d`);
    await Deno.writeTextFile(`${root}/d/f.txt`, "inside-d");
    const checked = await resolver.resolve("d/f.txt", { want: "file" });
    await Deno.rename(`${root}/d`, `${root}/d.real`);
    await Deno.symlink(outside, `${root}/d`);
    await Deno.writeTextFile(`${outside}/f.txt`, "outside-f");
    const error = (() => {
      try {
        fs.readResolved(checked, 1024);
      } catch (e) {
        return e;
      }
    })();
    assert(error instanceof ToolError, "the swapped read must fail");
    assertMatch((error as ToolError).message, /changed while it was being used/);
    const writeError = (() => {
      try {
        fs.writeResolved(checked, new TextEncoder().encode("pwned"));
      } catch (e) {
        return e;
      }
    })();
    assert(writeError instanceof ToolError, "the swapped write must fail");
    assertEquals(await Deno.readTextFile(`${outside}/f.txt`), "outside-f");
    assertEquals([...Deno.readDirSync(outside)].map((e) => e.name).sort(), ["f.txt", "secret.txt"]);
  });

  await t.step("a file swapped for a symlink after the check is caught at open", async () => {
    await Deno.writeTextFile(`${root}/g.txt`, "inside-g");
    const checked = await resolver.resolve("g.txt", { want: "file" });
    await Deno.remove(`${root}/g.txt`);
    await Deno.symlink(`${outside}/secret.txt`, `${root}/g.txt`);
    let caught: unknown;
    try {
      fs.readResolved(checked, 1024);
    } catch (e) {
      caught = e;
    }
    assert(caught instanceof ToolError);
    assertMatch((caught as ToolError).message, /changed/);
  });
});
