/**
 * The blacklist's answers against the plain reading of its rule, written
 * here apart from the code under test: a glob without `/` hides a path when
 * it matches any one segment, a glob with `/` when it matches the whole
 * path or a leading part of it; the glob named is the first, in the list's
 * order, that matches the first segment (or leading part) that any matches.
 * The implementation tests all globs at once first; these cases hold it to
 * the one-glob-at-a-time answer, named glob included.
 */

import { assertEquals } from "../_assert.ts";
import { compileBlacklist } from "../../security/blacklist.ts";
import { globToRegExp } from "../../security/glob.ts";
import { ALWAYS_BLACKLISTED, resolvePolicy } from "../../security/policy.ts";

/** One glob at a time, in order, as the rule reads. */
function reference(globs: readonly string[]) {
  const compiled = globs.map((glob) => {
    const trimmed = glob.replace(/^\/+|\/+$/g, "");
    return { glob, anchored: trimmed.includes("/"), re: globToRegExp(trimmed) };
  });
  const segmentGlobs = compiled.filter((each) => !each.anchored);
  const anchoredGlobs = compiled.filter((each) => each.anchored);
  return {
    match(relative: string): string | undefined {
      if (relative === "") return undefined;
      const parts = relative.split("/");
      for (const part of parts) {
        const hit = segmentGlobs.find((each) => each.re.test(part));
        if (hit) return hit.glob;
      }
      for (let end = 1; end <= parts.length; end++) {
        const prefix = parts.slice(0, end).join("/");
        const hit = anchoredGlobs.find((each) => each.re.test(prefix));
        if (hit) return hit.glob;
      }
      return undefined;
    },
    matchEntry(relative: string): string | undefined {
      const name = relative.split("/").at(-1)!;
      return segmentGlobs.find((each) => each.re.test(name))?.glob ??
        anchoredGlobs.find((each) => each.re.test(relative))?.glob;
    },
  };
}

/** Every path of up to three segments over these names. */
function paths(names: readonly string[]): string[] {
  const out: string[] = [""];
  for (const a of names) {
    out.push(a);
    for (const b of names) {
      out.push(`${a}/${b}`);
      for (const c of names) out.push(`${a}/${b}/${c}`);
    }
  }
  return out;
}

const NAMES = [
  "src",
  ".env",
  ".env.local",
  "secrets",
  "history.toml",
  "a_history.toml",
  "x.toolhost-tmp",
  ".config",
  "gh",
  "gcloud",
  "id_rsa",
  "key.pem",
  "Key.PEM",
  "build",
  "out.log",
  "ümlaut",
];

Deno.test("the blacklist names the glob the one-at-a-time rule names, on every path tried", async () => {
  const policy = await resolvePolicy({ roots: ["/"] });
  const lists: ReadonlyArray<readonly string[]> = [
    policy.blacklist,
    ALWAYS_BLACKLISTED,
    [],
    ["*.pem", "key.*", "secrets", ".config/gh", "**/build/*.log", "src/{a,b}*/x", "[!s]*rc"],
    // Two globs that match the same names: the first is the one named.
    ["*.toml", "history.toml", ".env*", ".env", "/.config/gh/", "**/gh"],
    ["ü*", "id_?sa"],
  ];
  for (const globs of lists) {
    const fast = compileBlacklist(globs);
    const slow = reference(globs);
    for (const path of paths(NAMES)) {
      assertEquals(fast.match(path), slow.match(path), `match ${path} with ${globs.join(" ")}`);
      assertEquals(
        fast.matchEntry(path),
        slow.matchEntry(path),
        `matchEntry ${path} with ${globs.join(" ")}`,
      );
    }
  }
});

Deno.test("the blacklist hides what its globs say and nothing else", () => {
  const blacklist = compileBlacklist(["*.pem", ".config/gh", "secrets"]);
  assertEquals(blacklist.match("a/b/key.pem"), "*.pem");
  // A glob with "/" holds from the root: under another directory it hides nothing.
  assertEquals(blacklist.match(".config/gh/hosts.yml"), ".config/gh");
  assertEquals(blacklist.match("a/.config/gh/hosts.yml"), undefined);
  assertEquals(blacklist.match("secrets/x"), "secrets");
  assertEquals(blacklist.match("a/secretsx"), undefined);
  assertEquals(blacklist.match("a/.config/ghost"), undefined);
  assertEquals(blacklist.matchEntry("a/key.pem"), "*.pem");
  assertEquals(blacklist.matchEntry("a/b"), undefined);
});
