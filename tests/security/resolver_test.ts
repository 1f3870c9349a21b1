/**
 * The inner boundary alone: the resolver in this process, whose Deno
 * permissions are broad (`--allow-all`), so that nothing but the resolver can
 * refuse a path. Each fixture outside the root is first read by the test
 * itself, to show that the outer boundary is not in the way.
 * (`boundaries_test.ts` tests the outer boundary without the resolver.)
 */

import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { type TempDir, tempDir } from "../_helpers.ts";
import { ToolError } from "../../security/errors.ts";
import { resolvePolicy } from "../../security/policy.ts";
import { type ResolveOptions, Resolver } from "../../security/resolver.ts";

interface Fixture {
  base: TempDir;
  root: string;
  /** A sibling whose name starts with the root's: `<base>/root-evil` for `<base>/root`. */
  evil: string;
  outside: string;
  resolver: Resolver;
}

async function fixture(): Promise<Fixture> {
  const base = await tempDir("toolhost-resolver-");
  const root = `${base.path}/root`;
  const evil = `${base.path}/root-evil`;
  const outside = `${base.path}/outside`;
  for (const dir of [root, `${root}/sub`, evil, outside]) await Deno.mkdir(dir);
  await Deno.writeTextFile(`${root}/inside.txt`, "inside\n");
  await Deno.writeTextFile(`${evil}/secret.txt`, "evil secret\n");
  await Deno.writeTextFile(`${outside}/secret.txt`, "outside secret\n");
  await Deno.symlink(`${outside}/secret.txt`, `${root}/link`);
  await Deno.symlink(outside, `${root}/dirlink`);
  await Deno.symlink("../root-evil", `${root}/evil-link`);
  const policy = await resolvePolicy({ roots: [root], createStateDir: false, scan: false });
  return { base, root, evil, outside, resolver: new Resolver(policy) };
}

/** The outer boundary is not what refuses: this process reads every outside fixture itself. */
function assertBroadPermissions(fx: Fixture): void {
  assertEquals(Deno.permissions.querySync({ name: "read" }).state, "granted", "run with -A");
  assertEquals(Deno.permissions.querySync({ name: "write" }).state, "granted", "run with -A");
  assertEquals(Deno.readTextFileSync(`${fx.outside}/secret.txt`), "outside secret\n");
  assertEquals(Deno.readTextFileSync(`${fx.evil}/secret.txt`), "evil secret\n");
  assertEquals(Deno.readTextFileSync(`${fx.root}/dirlink/secret.txt`), "outside secret\n");
}

/** What the resolver throws for a path, or a failure when it accepts it. */
function refusal(resolver: Resolver, raw: string, options: ResolveOptions = {}): ToolError {
  try {
    const resolved = resolver.resolveSync(raw, options);
    throw new Error(
      `${JSON.stringify(raw)} ${JSON.stringify(options)} resolved to ${resolved.path}`,
    );
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
}

const READ: ResolveOptions = {};
const CREATE: ResolveOptions = { mayCreate: true, createParents: true, write: true };

/** Refused as outside the roots, in words that do not depend on whether the path exists. */
function assertOutside(resolver: Resolver, raw: string, options: ResolveOptions): void {
  const error = refusal(resolver, raw, options);
  const where = `${JSON.stringify(raw)} ${JSON.stringify(options)}`;
  assertEquals(error.code, "path_denied", `${where}: ${error.message}`);
  assertEquals(
    error.message.replace(JSON.stringify(raw), "<path>"),
    `<path> is outside the allowed roots (${resolver.policy.roots.join(", ")})`,
    where,
  );
}

Deno.test("the resolver alone refuses `..` out of the root, and never says whether the target exists", async () => {
  const fx = await fixture();
  await using _base = fx.base;
  assertBroadPermissions(fx);
  for (
    const raw of [
      "..",
      "../outside/secret.txt",
      "../outside/missing.txt",
      "../missing-dir/missing.txt",
      "sub/../../outside/secret.txt",
      "./sub/../../outside/missing.txt",
      "sub/../..",
      "../root/../outside/secret.txt",
    ]
  ) {
    for (const options of [READ, { want: "file" } as const, CREATE]) {
      assertOutside(fx.resolver, raw, options);
    }
  }
  assertEquals([...Deno.readDirSync(fx.outside)].map((entry) => entry.name), ["secret.txt"]);
  // `..` that stays inside is an ordinary path.
  assertEquals(fx.resolver.resolveSync("sub/../inside.txt").path, `${fx.root}/inside.txt`);
});

Deno.test("the resolver alone refuses a sibling whose name starts with the root's", async () => {
  const fx = await fixture();
  await using _base = fx.base;
  assertBroadPermissions(fx);
  assertEquals(fx.resolver.locate(`${fx.evil}/secret.txt`), undefined);
  assertEquals(fx.resolver.locate(fx.evil), undefined);
  for (
    const raw of [
      `${fx.evil}/secret.txt`,
      `${fx.evil}/missing.txt`,
      fx.evil,
      "../root-evil/secret.txt",
      "../root-evil",
      "evil-link/secret.txt",
      "evil-link",
      `file://${fx.evil}/secret.txt`,
    ]
  ) {
    for (const options of [READ, CREATE]) assertOutside(fx.resolver, raw, options);
  }
  assertEquals([...Deno.readDirSync(fx.evil)].map((entry) => entry.name), ["secret.txt"]);
});

Deno.test("the resolver alone refuses absolute paths and symlinks that lead out", async () => {
  const fx = await fixture();
  await using _base = fx.base;
  assertBroadPermissions(fx);
  for (
    const raw of [
      "/etc/passwd",
      "/",
      `${fx.outside}/secret.txt`,
      `${fx.outside}/missing.txt`,
      `/proc/self/root${fx.outside}/secret.txt`,
      `file://${fx.outside}/secret.txt`,
      "link",
      "dirlink",
      "dirlink/secret.txt",
      "dirlink/missing.txt",
      "dirlink/new-dir/new.txt",
    ]
  ) {
    for (const options of [READ, CREATE]) assertOutside(fx.resolver, raw, options);
  }
  // An absolute path inside the root is one.
  assertEquals(fx.resolver.resolveSync(`${fx.root}/inside.txt`).relative, "inside.txt");
});

Deno.test("the resolver alone protects names without regard to case, as the README says", async () => {
  const fx = await fixture();
  await using _base = fx.base;
  const names = [
    ".GIT/hooks/pre-commit",
    ".Git/config",
    ".vscode/tasks.json",
    ".Vscode/tasks.json",
    ".VSCODE/settings.json",
    "sub/.Idea/workspace.xml",
    ".ENVRC",
    "sub/.Envrc",
    "TOOLHOST.JSON",
    ".MCP.json",
    ".Husky/pre-push",
    ".Claude/settings.json",
    ".SSH/config",
    "sub/.BashRC",
  ];
  for (const raw of names) {
    const why = fx.resolver.protectedWhy(`${fx.root}/${raw}`);
    assert(why !== undefined, `${raw} is not protected`);
    const error = refusal(fx.resolver, raw, CREATE);
    assertEquals(error.code, "protected_path", `${raw}: ${error.message}`);
    assertMatch(error.message, /is protected: .*tools may read it but never change it$/);
  }
  // What differs from a protected name by more than case is not protected.
  for (const raw of ["vscode/tasks.json", ".vscodex/tasks.json", "envrc", "sub/toolhost.json5"]) {
    assertEquals(fx.resolver.protectedWhy(`${fx.root}/${raw}`), undefined, raw);
  }
});
