/**
 * `find_usages` in the launch users run: the uses of one symbol, resolved
 * through scopes, imports and attributes, on a copy of python3's `email`
 * package (with `shlex.py`, which has its own `quote`) and on a small
 * package of harder cases.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../../_mcp.ts";
import { PKG, writeMailkit, writeTree } from "./_fixtures.ts";

interface Site {
  path: string;
  line: number;
  column: number;
  role: string;
  certainty: "exact" | "unsure";
  reason?: string;
  via?: string;
  text: string;
}

async function usages(
  session: StdioSession,
  args: Record<string, unknown>,
): Promise<{ text: string; sites: Site[]; data: Record<string, unknown> }> {
  const result = await session.call("find_usages", { limit: 500, ...args });
  const text = resultText(result);
  assert(!result.isError, `find_usages ${JSON.stringify(args)}: ${text}`);
  const data = result.structuredContent as Record<string, unknown>;
  return { text, sites: data.sites as Site[], data };
}

/** `path [role] line text`, with `unsure` and the alias when there are. */
function shown(site: Site): string {
  const via = site.via ? ` via ${site.via}` : "";
  const unsure = site.certainty === "unsure" ? " unsure" : "";
  return `${site.path} [${site.role}${via}${unsure}] ${site.text}`;
}

/** Each site's line and column point at the name it reports. */
async function assertPositions(root: string, sites: readonly Site[], names: string[]) {
  for (const site of sites) {
    const lines = (await Deno.readTextFile(`${root}/${site.path}`)).split(/\r\n|\r|\n/);
    const line = lines[site.line - 1] ?? "";
    assertEquals(line.trim(), site.text);
    const at = line.slice(site.column - 1);
    assert(names.some((name) => at.startsWith(name)), `${shown(site)} at column ${site.column}`);
  }
}

Deno.test("find_usages on a copy of the email package lists exactly the uses of the symbol named", async (t) => {
  await using root = await tempDir();
  await writeMailkit(root.path);
  await using session = await connectStdio([root.path]);

  await t.step(
    "_parseaddr.quote: its uses, utils.quote included; no shlex.quote, no local quote",
    async () => {
      const { sites, data } = await usages(session, {
        path: "mailkit/_parseaddr.py",
        name: "quote",
      });
      assertEquals(sites.map(shown), [
        "mailkit/_parseaddr.py [definition] def quote(str):",
        "mailkit/_parseaddr.py [string] 'quote',",
        `mailkit/_parseaddr.py [call] aslist.append('"%s"' % quote(self.getquote()))`,
        `mailkit/message.py [call] return '%s="%s"' % (param, utils.quote(value))`,
        "mailkit/utils.py [import] from mailkit._parseaddr import quote",
        `mailkit/utils.py [call] new_params.append((name, '"%s"' % quote(value)))`,
        "mailkit/utils.py [call] value = quote(EMPTYSTRING.join(value))",
      ]);
      assertMatch(data.definition as string, /^mailkit\/_parseaddr\.py:\d+-\d+$/);
      assertEquals(data.unsure, 0);
      await assertPositions(root.path, sites, ["quote"]);
    },
  );

  await t.step("the same symbol named where it is imported, and shlex.quote apart", async () => {
    const viaUtils = await usages(session, { path: "mailkit/utils.py", name: "quote" });
    const direct = await usages(session, { path: "mailkit/_parseaddr.py", name: "quote" });
    assertEquals(viaUtils.sites, direct.sites);
    assertStringIncludes(
      viaUtils.text,
      "imported into mailkit/utils.py from mailkit/_parseaddr.py",
    );
    const shlex = await usages(session, { path: "shlex.py", name: "quote" });
    assertEquals(shlex.sites.map((site) => site.path), ["shlex.py", "shlex.py", "shlex.py"]);
    assertEquals(shlex.sites.map((site) => site.role), ["definition", "string", "call"]);
  });

  await t.step("message.Message: every use in the package", async () => {
    const { sites } = await usages(session, { path: "mailkit/message.py", name: "Message" });
    assertEquals(sites.map(shown), [
      "mailkit/message.py [definition] class Message:",
      "mailkit/contentmanager.py [attribute] raw_data_manager.add_set_handler(mailkit.message.Message, set_message_content)",
      "mailkit/feedparser.py [import] from mailkit.message import Message",
      "mailkit/feedparser.py [reference] self._factory = Message",
      "mailkit/message.py [string] __all__ = ['Message', 'EmailMessage']",
      "mailkit/message.py [reference] class MIMEPart(Message):",
      "mailkit/mime/base.py [attribute] class MIMEBase(message.Message):",
      "mailkit/mime/base.py [attribute] message.Message.__init__(self, policy=policy)",
      "mailkit/mime/message.py [attribute] if not isinstance(_msg, message.Message):",
      "mailkit/mime/message.py [attribute] message.Message.attach(self, _msg)",
    ]);
    await assertPositions(root.path, sites, ["Message"]);
  });

  await t.step(
    "a method: self in the class and its subclasses exact, untyped receivers unsure",
    async () => {
      const { sites, text } = await usages(session, {
        path: "mailkit/message.py",
        name: "Message.get_payload",
      });
      assertEquals(sites[0]!.role, "definition");
      const exact = sites.filter((site) => site.certainty === "exact").map(shown);
      assertEquals(exact, [
        "mailkit/message.py [definition] def get_payload(self, i=None, decode=False):",
        "mailkit/message.py [call] payload = self.get_payload()",
        "mailkit/message.py [call] yield from self.get_payload()",
      ]);
      const unsure = sites.filter((site) => site.certainty === "unsure");
      assert(unsure.length >= 10, text);
      for (const site of unsure) assertMatch(site.reason ?? "", /^receiver of unknown type \(/);
      await assertPositions(root.path, sites, ["get_payload"]);
    },
  );
});

Deno.test("find_usages follows aliases, relative imports, classes and scopes, and says what it cannot be sure of", async (t) => {
  await using root = await tempDir();
  await writeTree(root.path, PKG);
  await Deno.writeTextFile(`${root.path}/pkg/notes.txt`, "helper helper\n");
  await using session = await connectStdio([root.path]);

  await t.step(
    "a function: imports, re-exports, module attributes, aliases; never shadowing names",
    async () => {
      const { sites, data } = await usages(session, { path: "pkg/core.py", name: "helper" });
      assertEquals(sites.map(shown), [
        "pkg/core.py [definition] def helper(x):",
        "pkg/__init__.py [import] from .core import helper, Widget",
        `pkg/__init__.py [string] __all__ = ["helper", "Widget"]`,
        "pkg/core.py [call] return self.render() + helper(self.size)",
        "pkg/core.py [call] first = [helper(x) for x in items]",
        "pkg/core.py [call] if (found := helper(1)):",
        "pkg/sub/user.py [import] from .. import helper as h",
        "pkg/sub/user.py [call] core.helper(1)",
        "pkg/sub/user.py [call] pkg.core.helper(2)",
        "pkg/sub/user.py [call] pc.helper(3)",
        "pkg/sub/user.py [call via h] h(4)",
        `pkg/sub/user.py [string unsure] getattr(core, "helper")`,
        "pkg/sub/user.py [call unsure] return helper(5), unknown.helper(6)",
        "pkg/sub/user.py [call unsure] return helper(5), unknown.helper(6)",
        "pkg/sub/user.py [call unsure] return helper(7), self.helper",
      ]);
      const reasons = sites.filter((site) => site.reason).map((site) => site.reason);
      assertEquals(reasons, [
        "named by a string in getattr()",
        `reached through "from pkg.core import *"`,
        `receiver of unknown type ("unknown" may come from "from pkg.core import *")`,
        `reached through "from pkg.core import *"`,
      ]);
      assertEquals(data.unsure, 4);
      await assertPositions(root.path, sites, ["helper", "h("]);
    },
  );

  await t.step(
    "a method: cls(), super(), instances and the class; an override is unsure",
    async () => {
      const { sites } = await usages(session, { path: "pkg/core.py", name: "Widget.draw" });
      assertEquals(sites.map(shown), [
        "pkg/core.py [definition] def draw(self):",
        "pkg/core.py [call] return cls().draw()",
        "pkg/core.py [call] return self.draw(), super().draw()",
        "pkg/core.py [definition unsure] def draw(self):",
        "pkg/sub/user.py [call] w.draw()",
        "pkg/sub/user.py [call] Widget.draw(w)",
      ]);
      assertEquals(sites[3]!.reason, "overrides Widget.draw in subclass Button");
      assertEquals(sites[2]!.column, 37, "super().draw(), not self.draw() (Button's own)");
    },
  );

  await t.step("global, nonlocal and class attributes", async () => {
    const counter = await usages(session, { path: "pkg/sub/scopes.py", name: "counter" });
    assertEquals(counter.sites.map((site) => `${site.line}:${site.column}:${site.role}`), [
      "1:1:definition",
      "5:12:reference",
      "6:5:assignment",
      "6:15:reference",
      "15:13:reference",
    ]);
    const hits = await usages(session, { path: "pkg/sub/scopes.py", name: "bump.inner.hits" });
    assertEquals(hits.sites.map((site) => `${site.line}:${site.role}`), [
      "9:definition",
      "12:reference",
      "13:assignment",
    ]);
    const size = await usages(session, { path: "pkg/core.py", name: "Widget.size" });
    assertEquals(size.sites.map((site) => site.text), [
      "size = 1",
      "return self.render() + helper(self.size)",
    ]);
  });

  await t.step("paging", async () => {
    const page = await usages(session, {
      path: "pkg/core.py",
      name: "helper",
      limit: 2,
      offset: 2,
    });
    assertEquals(page.sites.map((site) => `${site.path}:${site.line}`), [
      "pkg/__init__.py:3",
      "pkg/core.py:18",
    ]);
    assertEquals(page.data.next_offset, 4);
    assertEquals(page.data.total, 15);
    assertStringIncludes(page.text, "call again with offset: 4");
  });

  await t.step("a file changed since the last call is read again", async () => {
    const path = `${root.path}/pkg/sub/scopes.py`;
    await Deno.writeTextFile(
      path,
      `from pkg.core import helper\n${await Deno.readTextFile(path)}\nhelper(8)\n`,
    );
    const { sites } = await usages(session, { path: "pkg/core.py", name: "helper" });
    assertEquals(
      sites.filter((site) => site.path === "pkg/sub/scopes.py").map((site) => site.text),
      ["from pkg.core import helper", "helper(8)"],
    );
    assertEquals(sites.length, 17);
  });

  await t.step("errors a model can act on", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { path: "pkg/core.py", name: "nothing" },
        /^not_found: "pkg\/core\.py" defines no top-level name "nothing"/,
      ],
      [
        { path: "pkg/core.py", name: "Widget.nothing" },
        /^not_found: "Widget" in "pkg\/core\.py" has no member "nothing"/,
      ],
      [
        { path: "pkg/__init__.py", name: "core" },
        /^invalid_argument: "core" in "pkg\/__init__\.py" is a module/,
      ],
      [
        { path: "pkg/notes.txt", name: "helper" },
        /^unsupported: Cannot resolve symbols in "pkg\/notes\.txt"/,
      ],
      [{ path: "pkg/missing.py", name: "helper" }, /^not_found: /],
      [{ path: "pkg/core.py", name: "Widget..draw" }, /^invalid_argument: /],
    ];
    for (const [args, error] of cases) {
      const result = await session.call("find_usages", args);
      assertEquals(result.isError, true, JSON.stringify(args));
      assertMatch(resultText(result), error);
    }
  });
});

Deno.test("find_usages matches identifiers only, across a directory (never strings, comments or longer names)", async () => {
  await using root = await tempDir();
  await writeTree(root.path, {
    "app/__init__.py": "",
    "app/a.py": [
      "RATIO = 1.5",
      "try:",
      "    import numpy",
      "except ImportError:",
      "    def fallback(x, *, scale=RATIO):",
      '        # not "fallback" in a comment',
      '        return "fallback" and x * scale',
      "",
    ].join("\n"),
    "app/sub/b.py": [
      "from app.a import fallback",
      "",
      "result = fallback(2, scale=3)",
      'name = "fallback"  # fallback',
      "fallbacks = 1",
      "",
    ].join("\n"),
  });
  await using session = await connectStdio([root.path]);
  const { sites, text } = await usages(session, {
    path: "app/a.py",
    name: "fallback",
    scope: "app",
  });
  assertEquals(sites.map((site) => `${site.path}:${site.line}:${site.column}:${site.role}`), [
    "app/a.py:5:9:definition",
    "app/sub/b.py:1:19:import",
    "app/sub/b.py:3:10:call",
  ]);
  // Sites in two files; the three Python files of app/ searched.
  assertStringIncludes(text, "\n3 sites in 2 files (3 files searched)");
  const ratio = await usages(session, { path: "app/a.py", name: "RATIO", scope: "app/a.py" });
  assertEquals(ratio.sites.map((site) => site.line), [1, 5]);
  assertEquals(ratio.data.files_searched, 1);
  assertStringIncludes(ratio.text, "\n2 sites in 1 file (1 file searched)");
});
