/**
 * Tool names within MCP's rule: every tool of every family keeps to it as
 * written; an upstream server's `<server>__<tool>` that would not is made to
 * fit, the same way every time and never onto another's name; a server name
 * that cannot form valid names is refused.
 */

import { assert, assertEquals, assertMatch, assertNotEquals } from "../_assert.ts";
import { FAMILIES } from "../../tools/families.ts";
import { HOST_TOOLS } from "../../tools/host_tools.ts";
import { ICONS } from "../../tools/icons.ts";
import { TOOLS } from "../../tools/mod.ts";
import {
  MAX_TOOL_NAME_LENGTH,
  serverNameProblem,
  TOOL_NAME_PATTERN,
} from "../../tools/tool_names.ts";
import { upstreamToolName } from "../../tools/upstream_tool_name.ts";

Deno.test("tool names: every tool of every family, worker and host side, keeps to MCP's rule", () => {
  const names = [...TOOLS, ...HOST_TOOLS].map((tool) => tool.name);
  assert(names.length > 40, `${names.length} tools`);
  for (const name of names) assertMatch(name, TOOL_NAME_PATTERN);
  assert(TOOL_NAME_PATTERN.test("a".repeat(64)) && !TOOL_NAME_PATTERN.test("a".repeat(65)));
  for (const bad of ["", "has space", "slash/name", "comma,name", "é"]) {
    assert(!TOOL_NAME_PATTERN.test(bad), JSON.stringify(bad));
  }
});

Deno.test("tool names: an upstream's valid name is kept as <server>__<tool>", () => {
  assertEquals(upstreamToolName("fs", "list_directory"), "fs__list_directory");
  assertEquals(upstreamToolName("docs", "admin.tools.list"), "docs__admin.tools.list");
  const longest = "t".repeat(MAX_TOOL_NAME_LENGTH - "fs__".length);
  assertEquals(upstreamToolName("fs", longest), `fs__${longest}`);
});

Deno.test("tool names: an upstream's name outside the rule is made to fit, deterministically and without clashes", async (t) => {
  await t.step("characters outside the set become _, and a hash of the original ends it", () => {
    const spaced = upstreamToolName("odd", "has space");
    assertMatch(spaced, /^odd__has_space-[0-9a-f]{8}$/);
    assertMatch(upstreamToolName("odd", "slash/name"), /^odd__slash_name-[0-9a-f]{8}$/);
    // A valid tool named like the replaced one keeps its own name: the two never meet.
    assertNotEquals(spaced, upstreamToolName("odd", "has_space"));
    assertEquals(upstreamToolName("odd", "has_space"), "odd__has_space");
  });

  await t.step(
    "a long name is cut to 64 characters; two that differ only past the cut differ",
    () => {
      const prefix = `shared_prefix_${"y".repeat(60)}`;
      const one = upstreamToolName("odd", `${prefix}_one`);
      const two = upstreamToolName("odd", `${prefix}_two`);
      for (const name of [one, two]) {
        assertEquals(name.length, MAX_TOOL_NAME_LENGTH);
        assertMatch(name, TOOL_NAME_PATTERN);
        assert(name.startsWith("odd__shared_prefix_yyy"), name);
      }
      assertNotEquals(one, two);
    },
  );

  await t.step(
    "the same server and tool give the same name every time; another server another",
    () => {
      const name = "x".repeat(70);
      assertEquals(upstreamToolName("odd", name), upstreamToolName("odd", name));
      assertNotEquals(
        upstreamToolName("odd", name).slice(-8),
        upstreamToolName("odd2", name).slice(-8),
      );
    },
  );

  await t.step("odd characters of every kind still give a valid name", () => {
    for (
      const tool of ["", "é", "🙂".repeat(40), "a\nb", "tab\there", "../up", "💥 ".repeat(100)]
    ) {
      assertMatch(upstreamToolName("odd", tool), TOOL_NAME_PATTERN, JSON.stringify(tool));
    }
  });
});

Deno.test("tool names: a server name that cannot form valid tool names is refused with a reason", () => {
  for (const good of ["fs", "my-server", "docs.v2", "a_b", "s".repeat(32)]) {
    assertEquals(serverNameProblem(good), undefined, good);
  }
  const cases: Array<[string, RegExp]> = [
    ["", /it is empty/],
    ["my server", /may hold only letters, digits/],
    ["a/b", /may hold only letters, digits/],
    ["a__b", /may not hold "__" nor end with "_"/],
    ["trailing_", /may not hold "__" nor end with "_"/],
    ["s".repeat(33), /33 characters long, the limit is 32/],
  ];
  for (const [name, why] of cases) {
    const problem = serverNameProblem(name);
    assertMatch(problem ?? "", why, name);
    assert(problem?.startsWith(`Cannot use upstream server name "${name}"`), problem);
    let thrown: unknown;
    try {
      upstreamToolName(name, "tool");
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof RangeError, `${name}: ${thrown}`);
  }
});

Deno.test("tool icons: every family declares its own icon, a small SVG data URI", () => {
  const icons = FAMILIES.map((family) => family.icon.src);
  assertEquals(new Set([...icons, ICONS.upstream.src]).size, FAMILIES.length + 1);
  for (const family of FAMILIES) {
    const { src, mimeType } = family.icon;
    assertEquals(mimeType, "image/svg+xml");
    assert(src.length < 400, `${family.name}: ${src.length} characters`);
    const svg = new TextDecoder().decode(
      Uint8Array.from(
        atob(src.replace(/^data:image\/svg\+xml;base64,/, "")),
        (c) => c.charCodeAt(0),
      ),
    );
    assertMatch(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/s);
  }
});
