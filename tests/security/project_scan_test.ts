/**
 * The start-up walk (`security/project_scan.ts`), through `resolvePolicy`:
 * where protected names that are links lead is protected under its own
 * name, hidden entries at any depth are listed for the sandbox to mount
 * over, and the walk skips git's object store and the state directory and
 * never follows a link. Also the secret names (`security/secrets.ts`).
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { GIT_DIRECTORY_WHY } from "../../security/git_dir.ts";
import { type Policy, resolvePolicy } from "../../security/policy.ts";
import { scanRoots } from "../../security/project_scan.ts";
import { Resolver } from "../../security/resolver.ts";
import { homeSecrets, SECRET_NAMES, secretNames } from "../../security/secrets.ts";

/** Write a file, making its parents. */
async function write(path: string, text = "x\n"): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** Make a symbolic link, making the link's parents. */
async function link(target: string, path: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.symlink(target, path);
}

/** The reason the policy protects a path by path, if it does. */
function protectedFileWhy(policy: Policy, path: string): string | undefined {
  return policy.protectedFiles.find((file) => file.path === path)?.why;
}

/** The hidden entries, sorted by path. */
function hiddenEntries(policy: Policy): Array<{ path: string; dir: boolean }> {
  return policy.hiddenEntries.map((each) => ({ path: each.path, dir: each.dir }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

Deno.test("resolvePolicy protects where protected links lead, under their own names", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  const r = root.path;
  await write(`${r}/scripts/pre-commit`, "#!/bin/sh\n");
  await write(`${r}/scripts/other`);
  await link("../../scripts/pre-commit", `${r}/.git/hooks/pre-commit`);
  await write(`${r}/tools/tasks.json`, "{}\n");
  await link("../tools/tasks.json", `${r}/.vscode/tasks.json`);
  await link("../scripts/later.sh", `${r}/.husky/pre-push`); // dangling: created later
  await write(`${outside.path}/envrc`, "export X=1\n");
  await link(`${outside.path}/envrc`, `${r}/.envrc`);
  await link("../scripts/other", `${r}/src/not-protected`); // an ordinary name: nothing to follow
  const policy = await resolvePolicy({ roots: [r], createStateDir: false });
  const resolver = new Resolver(policy);

  await t.step("a hook that links to a script protects the script, naming the link", () => {
    const why = protectedFileWhy(policy, `${r}/scripts/pre-commit`);
    assert(why !== undefined, "scripts/pre-commit is protected");
    assertStringIncludes(why, '".git/hooks/pre-commit"');
    assertStringIncludes(why, GIT_DIRECTORY_WHY);
    const said = resolver.protectedWhy(`${r}/scripts/pre-commit`);
    assert(said !== undefined, "the resolver protects scripts/pre-commit");
    assertStringIncludes(said, '".git/hooks/pre-commit"');
  });
  await t.step("an editor task file's target is protected", () => {
    assertStringIncludes(
      resolver.protectedWhy(`${r}/tools/tasks.json`) ?? "",
      '".vscode/tasks.json"',
    );
  });
  await t.step("a dangling link's target is protected before it exists", () => {
    const why = resolver.protectedWhy(`${r}/scripts/later.sh`);
    assertStringIncludes(why ?? "", '".husky/pre-push"');
  });
  await t.step("a protected name linking outside the roots adds nothing and is no error", () => {
    assertFalse(policy.protectedFiles.some((file) => file.path.startsWith(outside.path)));
    assertEquals(resolver.protectedWhy(`${outside.path}/envrc`), undefined);
  });
  await t.step("what no protected link leads to stays writable", () => {
    assertEquals(resolver.protectedWhy(`${r}/scripts/other`), undefined);
    assertEquals(resolver.protectedWhy(`${r}/tools/other.json`), undefined);
  });
});

Deno.test("resolvePolicy protects all beneath a directory that a protected directory link leads to", async () => {
  await using root = await tempDir();
  const r = root.path;
  await write(`${r}/tools/hooks/post-checkout`, "#!/bin/sh\n");
  await write(`${r}/tools/readme.md`);
  await Deno.mkdir(`${r}/.git`);
  await link("../tools/hooks", `${r}/.git/hooks`);
  const policy = await resolvePolicy({ roots: [r], createStateDir: false });
  const resolver = new Resolver(policy);
  assertStringIncludes(protectedFileWhy(policy, `${r}/tools/hooks`) ?? "", '".git/hooks"');
  assertStringIncludes(resolver.protectedWhy(`${r}/tools/hooks`) ?? "", '".git/hooks"');
  assertStringIncludes(
    resolver.protectedWhy(`${r}/tools/hooks/post-checkout`) ?? "",
    '".git/hooks"',
  );
  assertStringIncludes(resolver.protectedWhy(`${r}/tools/hooks/new-hook`) ?? "", '".git/hooks"');
  assertEquals(resolver.protectedWhy(`${r}/tools/readme.md`), undefined);
});

Deno.test("resolvePolicy protects a dangling link's target where the kernel would put it", async () => {
  // `.husky/pre-push -> ../via/../later.sh` with `via -> a/b`: the kernel
  // resolves `via` before `..`, so the hook, once created, is `a/later.sh`.
  await using root = await tempDir();
  const r = root.path;
  await Deno.mkdir(`${r}/a/b`, { recursive: true });
  await Deno.symlink("a/b", `${r}/via`);
  await link("../via/../later.sh", `${r}/.husky/pre-push`);
  const policy = await resolvePolicy({ roots: [r], createStateDir: false });
  await Deno.writeTextFile(`${r}/a/later.sh`, "#!/bin/sh\n");
  assertEquals(await Deno.realPath(`${r}/.husky/pre-push`), `${r}/a/later.sh`, "the oracle");
  assertStringIncludes(
    new Resolver(policy).protectedWhy(`${r}/a/later.sh`) ?? "",
    '".husky/pre-push"',
  );
});

Deno.test("scanRoots leaves out a protected link's target outside the roots", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await write(`${outside.path}/tasks.json`);
  await link(`${outside.path}/tasks.json`, `${root.path}/.vscode/tasks.json`);
  await write(`${root.path}/tools/tasks.json`);
  await link("../tools/tasks.json", `${root.path}/.idea/tasks.json`);
  const scan = scanRoots([root.path], {
    protectedWhy: (relative) => relative.startsWith(".") ? "test" : undefined,
    hidden: () => false,
    skip: `${root.path}/.toolhost`,
    limit: 1000,
  });
  assertEquals(scan.linkTargets, [
    { path: `${root.path}/tools/tasks.json`, why: '".idea/tasks.json" links to it: test' },
  ]);
});

Deno.test("resolvePolicy lists the hidden entries at any depth of a root, not what lies beneath them", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  const r = root.path;
  await write(`${r}/deep/dir/.ssh/id_rsa`);
  await write(`${r}/a/b/c.pfx`);
  await write(`${r}/x/y/secret.txt`);
  await write(`${r}/src/main.py`);
  await write(`${r}/.git/objects/aa/.ssh/id_rsa`); // git's object store: never walked
  await write(`${r}/.toolhost/.ssh/id_rsa`); // the state directory: never walked
  await write(`${outside.path}/.ssh/id_rsa`);
  await Deno.symlink(".", `${r}/loop`);
  await Deno.symlink(outside.path, `${r}/out`);
  const policy = await resolvePolicy({ roots: [r], blacklist: ["secret.txt"] });

  await t.step(
    "the hidden entries are exactly the secret names and the blacklisted ones found",
    () => {
      assertEquals(hiddenEntries(policy), [
        { path: `${r}/a/b/c.pfx`, dir: false },
        { path: `${r}/deep/dir/.ssh`, dir: true },
        { path: `${r}/x/y/secret.txt`, dir: false },
      ]);
    },
  );
  await t.step("the blacklist holds every secret name and the configured glob", () => {
    for (const name of SECRET_NAMES) assert(policy.blacklist.includes(name), name);
    assert(policy.blacklist.includes("secret.txt"));
  });
  await t.step("the walk follows no link and ends within its bound", () => {
    assertFalse(policy.scan.truncated);
    assert(policy.scan.entries > 0 && policy.scan.entries < 100, `${policy.scan.entries} entries`);
    assertFalse(policy.hiddenEntries.some((each) => each.path.startsWith(`${r}/out/`)));
    assertFalse(policy.hiddenEntries.some((each) => each.path.startsWith(`${r}/loop/`)));
  });
  await t.step("the walk skips git's object store and the state directory", () => {
    assertEquals(policy.stateDir, `${r}/.toolhost`);
    assertFalse(policy.hiddenEntries.some((each) => each.path.startsWith(`${r}/.git/`)));
    assertFalse(policy.hiddenEntries.some((each) => each.path.startsWith(`${r}/.toolhost/`)));
  });
  await t.step(
    "a secret name lifted by unhide is no longer hidden; what it holds may still be",
    async () => {
      const lifted = await resolvePolicy({ roots: [r], unhide: [".ssh"], createStateDir: false });
      assertFalse(lifted.blacklist.includes(".ssh"));
      assertEquals(hiddenEntries(lifted), [
        { path: `${r}/a/b/c.pfx`, dir: false },
        { path: `${r}/deep/dir/.ssh/id_rsa`, dir: false },
      ]);
    },
  );
  await t.step("with scan: false there is no walk", async () => {
    const unscanned = await resolvePolicy({ roots: [r], scan: false, createStateDir: false });
    assertEquals(unscanned.hiddenEntries, []);
    assertEquals(unscanned.scan, { entries: 0, truncated: false });
  });
});

Deno.test("resolvePolicy with scan: false protects no link target", async () => {
  await using root = await tempDir();
  await write(`${root.path}/scripts/pre-commit`);
  await link("../../scripts/pre-commit", `${root.path}/.git/hooks/pre-commit`);
  const policy = await resolvePolicy({ roots: [root.path], scan: false, createStateDir: false });
  assertEquals(protectedFileWhy(policy, `${root.path}/scripts/pre-commit`), undefined);
  assertEquals(new Resolver(policy).protectedWhy(`${root.path}/scripts/pre-commit`), undefined);
});

Deno.test("secretNames lifts exactly the listed entries, and refuses a name not in the list", () => {
  const names = secretNames([".ssh"]);
  assertFalse(names.includes(".ssh"));
  assertEquals(names, SECRET_NAMES.filter((name) => name !== ".ssh"));
  assertEquals(secretNames(), [...SECRET_NAMES]);
  let thrown: unknown;
  try {
    secretNames(["nope"]);
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof TypeError, "a TypeError");
  assertStringIncludes(thrown.message, '"nope"');
});

Deno.test("homeSecrets names the home's own secrets and the plain secret names beneath it", () => {
  const paths = homeSecrets("/h");
  for (
    const name of [".env", ".npmrc", ".docker", ".kube", ".ssh", ".netrc", ".docker/config.json"]
  ) {
    assert(paths.includes(`/h/${name}`), name);
  }
  assertFalse(paths.some((path) => /[*?]/.test(path)), "no pattern");
  assertFalse(homeSecrets("/h", [".ssh"]).includes("/h/.ssh"));
});

Deno.test("resolvePolicy hides the home's secrets where a root is the home", async () => {
  await using root = await tempDir();
  const r = root.path;
  await write(`${r}/.env`, "TOKEN=1\n");
  await write(`${r}/sub/.env`, "PORT=1\n");
  const policy = await resolvePolicy({ roots: [r], home: r, createStateDir: false });
  assert(policy.hiddenFiles.includes(`${r}/.env`));
  assert(policy.hiddenFiles.includes(`${r}/.npmrc`), "listed though it does not exist");
  const resolver = new Resolver(policy);
  assert(resolver.hidden(`${r}/.env`) !== undefined, "the home's .env is hidden");
  assertEquals(resolver.hidden(`${r}/sub/.env`), undefined, "a project's .env is not");
  await using away = await tempDir();
  const elsewhere = await resolvePolicy({ roots: [r], home: away.path, createStateDir: false });
  assertEquals(elsewhere.hiddenFiles, [], "a home outside the roots hides nothing in them");
});
