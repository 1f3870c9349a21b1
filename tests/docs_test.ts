/**
 * The documentation holds together: every relative link and anchor in
 * README.md and docs/*.md leads somewhere (the file exists; the anchor is a
 * heading's, under GitHub's slug rules), and the README's commands table
 * names every command the CLI has — those `host/cli/main.ts` lists and
 * dispatches, and those `bin/toolhost` answers itself — and no other.
 */
import { assert, assertEquals } from "./_assert.ts";
import { main } from "../host/cli/mod.ts";

const REPO = new URL("../", import.meta.url);

/** A Markdown file's text without its fenced code blocks (their lines kept, emptied). */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return "";
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined;
      }
      return "";
    }
    return line;
  }).join("\n");
}

/** Text without its code spans (a span may run over a line break, as `deno fmt` wraps them). */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)(?:(?!\1)[\s\S])*?[^`]\1(?!`)/g, "");
}

/**
 * The anchor GitHub gives a heading: its text as rendered (code, emphasis and link markup gone),
 * lower-cased, without punctuation but `-` and `_`, each space a `-` (github-slugger's rules).
 */
function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/(^|\W)[*_]+|[*_]+(?=\W|$)/g, "$1");
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(
    / /g,
    "-",
  );
}

/** The anchors of a Markdown file's headings, a repeated one numbered as GitHub numbers it. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split("\n")) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The targets of a Markdown file's inline links and images, outside code. */
function linksOf(markdown: string): string[] {
  const prose = withoutCodeSpans(withoutFences(markdown));
  return [...prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1]!);
}

/**
 * What is wrong with each relative link of one Markdown file: a file that does not exist, or an
 * anchor that no heading of its target has.
 *
 * @param from The Markdown file's URL.
 * @param markdown Its text.
 * @param read Reads another Markdown file, or answers undefined when there is none.
 * @returns One line per broken link.
 */
async function brokenLinks(
  from: URL,
  markdown: string,
  read: (url: URL) => Promise<string | undefined>,
): Promise<string[]> {
  const broken: string[] = [];
  for (const target of linksOf(markdown)) {
    if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path = "", anchor] = target.split("#", 2);
    const url = path === "" ? from : new URL(path, from);
    const text = url.href === from.href ? markdown : await read(url);
    if (text === undefined) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === "") continue;
    if (!url.pathname.endsWith(".md")) {
      broken.push(`${target}: an anchor into a file that is not Markdown`);
    } else if (!anchorsOf(text).has(decodeURIComponent(anchor))) {
      broken.push(`${target}: no heading "#${anchor}" in ${url.pathname.split("/").pop()}`);
    }
  }
  return broken;
}

/** A file's text, or undefined when there is none (a directory counts as there: its text is ""). */
async function readRepoFile(url: URL): Promise<string | undefined> {
  try {
    const info = await Deno.stat(url);
    return info.isDirectory ? "" : await Deno.readTextFile(url);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** README.md and every docs/*.md. */
async function documentation(): Promise<URL[]> {
  const files = [new URL("README.md", REPO)];
  for await (const entry of Deno.readDir(new URL("docs/", REPO))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(new URL(`docs/${entry.name}`, REPO));
  }
  return files.sort((a, b) => a.href.localeCompare(b.href));
}

Deno.test("every relative link and anchor in README.md and docs/*.md resolves", async (t) => {
  await t.step(
    "the checker finds a missing file, a missing anchor, and passes good links",
    async () => {
      const from = new URL("docs/page.md", REPO);
      const files: Record<string, string> = {
        [new URL("docs/other.md", REPO).href]:
          "# Other\n\n## Run it for a team\n\n## Run it for a team\n",
      };
      const read = (url: URL) => Promise.resolve(files[url.href]);
      const markdown = [
        "# Page: the `toolhost.json` keys",
        "[good](other.md#run-it-for-a-team), [second](other.md#run-it-for-a-team-1),",
        "[self](#page-the-toolhostjson-keys), [web](https://example.com/x#y), `[code](nowhere.md)`",
        "```",
        "[fenced](nowhere.md)",
        "```",
        "[gone](missing.md), [bad anchor](other.md#run-it-for-teams), [bad self](#nothing)",
        "![image](gone.png)",
      ].join("\n");
      assertEquals(await brokenLinks(from, markdown, read), [
        "missing.md: no such file",
        'other.md#run-it-for-teams: no heading "#run-it-for-teams" in other.md',
        '#nothing: no heading "#nothing" in page.md',
        "gone.png: no such file",
      ]);
    },
  );

  await t.step("slugs are GitHub's", () => {
    // Anchors GitHub gave these headings of this README before it was split.
    assertEquals(
      slug("A human in the loop: approvals, the Hook API and the dashboard"),
      "a-human-in-the-loop-approvals-the-hook-api-and-the-dashboard",
    );
    assertEquals(
      slug("Host state comes only from the host's own state directory"),
      "host-state-comes-only-from-the-hosts-own-state-directory",
    );
    assertEquals(
      slug("Mirroring calls to observers (efferent copy)"),
      "mirroring-calls-to-observers-efferent-copy",
    );
    assertEquals(slug("The `net_denied` code"), "the-net_denied-code");
  });

  const files = await documentation();
  assert(files.length > 5, `README.md and docs/*.md: found ${files.length}`);
  for (const file of files) {
    const name = file.href.slice(REPO.href.length);
    await t.step(name, async () => {
      const text = await Deno.readTextFile(file);
      const broken = await brokenLinks(file, text, readRepoFile);
      assertEquals(broken, [], `${name} has broken links:\n${broken.join("\n")}`);
    });
  }
});

/** The commands the usage text lists: the names at the start of its "Commands:" lines. */
async function usageCommands(): Promise<string[]> {
  const lines: string[] = [];
  const code = await main(["--help"], { out: (line) => lines.push(line), err: () => {} });
  assertEquals(code, 0, "toolhost --help");
  const section = /^Commands:\n([\s\S]*?)\n\s*\n/m.exec(lines.join("\n"))?.[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!);
}

/** The commands `host/cli/main.ts` dispatches: the `case "…":` labels of its switch. */
async function dispatchedCommands(): Promise<string[]> {
  const source = await Deno.readTextFile(new URL("host/cli/main.ts", REPO));
  return [...source.matchAll(/^\s*case "([a-z][a-z-]*)":/gm)].map((match) => match[1]!);
}

/** The commands `bin/toolhost` answers itself: the arms of its last `case ${1:-} in`. */
async function binCommands(): Promise<string[]> {
  const script = await Deno.readTextFile(new URL("bin/toolhost", REPO));
  const dispatch = /^case \$\{1:-\} in\n([\s\S]*?)^esac/m.exec(script)?.[1] ?? "";
  return [...dispatch.matchAll(/^ {2}([a-z][a-z-]*)\)/gm)].map((match) => match[1]!);
}

/** The commands the README's "Commands" table names: each row's first word. */
async function readmeCommands(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  const section = /^## Commands\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? "";
  return [...section.matchAll(/^\| `([a-z][a-z-]*)[^`]*` +\|/gm)].map((match) => match[1]!);
}

Deno.test("the README's commands table names every CLI command, and only those", async () => {
  const usage = await usageCommands();
  const dispatched = await dispatchedCommands();
  const bin = await binCommands();
  // Found at all: a changed shape of the usage text, the switch or the script fails here.
  assert(usage.length >= 10, `toolhost --help's commands: ${usage.join(", ")}`);
  assert(dispatched.length >= 10, `main.ts's dispatched commands: ${dispatched.join(", ")}`);
  assert(bin.includes("start") && bin.length >= 3, `bin/toolhost's commands: ${bin.join(", ")}`);
  const cli = new Set([...usage, ...dispatched, ...bin]);
  const table = await readmeCommands();
  assertEquals(
    table.length,
    new Set(table).size,
    `a command listed twice: ${table.join(", ")}`,
  );
  const missing = [...cli].filter((command) => !table.includes(command)).sort();
  const unknown = table.filter((command) => !cli.has(command)).sort();
  assertEquals(missing, [], `commands the README's table leaves out: ${missing.join(", ")}`);
  assertEquals(
    unknown,
    [],
    `rows of the README's table that are no command: ${unknown.join(", ")}`,
  );
});
