/**
 * Seeded fuzzing of every tool through the launch users run: wrong types,
 * huge strings and arrays, deep nesting, extreme numbers and dates, odd
 * Unicode, paths of every shape. Afterwards the host still answers, every
 * reply stayed within the bound, and the log has one well-formed line per
 * call. Set FUZZ_SEED to replay a run; the seed is printed when it fails.
 */

import type { Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, resultText } from "../_mcp.ts";
import { mulberry32 } from "../../bench/_seeded.ts";

const BOUND = 200_000;
const CALLS_PER_TOOL = 40;
const IN_FLIGHT = 6;
/** The fuzzing stops making new calls after this long (the run stays bounded on a slow machine). */
const BUDGET_MS = 90_000;

/** A small seeded generator, so that a failure can be replayed. */
const generator = mulberry32;

const PATHS = [
  "",
  ".",
  "..",
  "../..",
  "../../etc/passwd",
  "/etc/passwd",
  "/",
  "//",
  "a/../../b",
  "~",
  "~/x",
  "..\\..\\x",
  "file:///etc/passwd",
  "a\u0000b",
  "x".repeat(5000),
  "a/".repeat(2000),
  "*",
  "**/*",
  "[",
  "C:\\Windows",
  ".toolhost/anchors.json",
  ".toolhost",
  ".git/config",
  ".mcp.json",
  "src/app.py",
  "src",
  "src/",
  "./src/../src/app.py",
  "src/app.py/..",
  "\u202egnp.exe",
  "😀.txt",
  "e\u0301.txt",
  "%2e%2e/%2e%2e",
  "src/\u0000",
  " ",
  "\n",
  "con",
  "src/lib.c",
  "web/main.ts",
];
const STRINGS = [
  "",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e",
  "𝕏".repeat(1000),
  "\u200b",
  "a\r\nb",
  "%s%n",
  "'; DROP TABLE x; --",
  "${7*7}",
  "{{7*7}}",
  "(a+)+$",
  "[",
  "\\",
  "(?<=x)y",
  "(a|aa)+b",
  "*",
  "def f(:\n",
  "class A(A):",
  "x".repeat(200_000),
  "y\n".repeat(50_000),
  "null",
  "true",
];
const DATES = [
  "275760-09-13T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "-271821-04-20T00:00:00Z",
  "9999-12-31",
  "0000-01-01",
  "2026-13-45",
  "not a date",
  "1970-01-01T00:00:00Z",
  "",
  new Date(Date.now() + 10 * 365 * 86_400_000).toISOString(),
  "P1D",
  "now",
  "-1",
];
const NUMBERS = [
  0,
  -1,
  -0,
  1,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 31),
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  1e-308,
];

/** The scalars `anyValue` picks from (one list, not one made for each pick). */
const SCALARS = [...STRINGS, ...PATHS, ...DATES];

/**
 * An array of `length` items made in order, as `Array.from({ length }, make)` makes it, at a
 * third of its cost: the calls are made before the test starts, with a few hundred arrays of
 * 100,000 items among them, and Array.from took seconds of CPU for those.
 */
function filled<T>(length: number, make: () => T): T[] {
  const out = new Array<T>(length);
  for (let i = 0; i < length; i++) out[i] = make();
  return out;
}

/** Random JSON of any type, some of it large or deep. */
function anyValue(random: () => number, depth = 0): unknown {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (depth > 6 || roll < 0.25) return pick(SCALARS);
  if (roll < 0.4) return pick(NUMBERS);
  if (roll < 0.45) return pick([null, true, false]);
  if (roll < 0.5) return filled(pick([0, 1, 100_000]), () => pick(NUMBERS));
  if (roll < 0.55) {
    let deep: unknown = pick(STRINGS.slice(0, 5));
    for (let i = 0, n = pick([20, 60, 127, 400]); i < n; i++) {
      deep = random() < 0.5 ? [deep] : { a: deep };
    }
    return deep;
  }
  if (roll < 0.75) {
    return Array.from({ length: 1 + Math.floor(random() * 4) }, () => anyValue(random, depth + 1));
  }
  return Object.fromEntries(
    Array.from(
      { length: 1 + Math.floor(random() * 4) },
      () => [pick(STRINGS).slice(0, 40), anyValue(random, depth + 1)],
    ),
  );
}

/** A value for a property of a schema: mostly of its type (at the edges), sometimes anything. */
function valueFor(schema: Record<string, unknown>, name: string, random: () => number): unknown {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  if (random() < 0.3) return anyValue(random);
  if (Array.isArray(schema.enum)) return random() < 0.7 ? pick(schema.enum) : pick(STRINGS);
  switch (schema.type) {
    case "string":
      if (/path|source|destination|file|dir|root/i.test(name)) return pick(PATHS);
      if (/since|until|date|time/i.test(name)) return pick(DATES);
      return pick(STRINGS);
    case "integer":
    case "number":
      return pick(NUMBERS);
    case "boolean":
      return random() < 0.5;
    case "array": {
      // A long array of small items, or a short one of anything (not a gigabyte the client cannot send).
      const long = random() < 0.25;
      const item = () =>
        long
          ? pick(NUMBERS)
          : schema.items && typeof schema.items === "object"
          ? valueFor(schema.items as Record<string, unknown>, name, random)
          : anyValue(random);
      return filled(long ? 5000 : pick([0, 1, 3]), item);
    }
    default:
      return anyValue(random);
  }
}

function argumentsFor(tool: Tool, random: () => number): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (random() < 0.85) args[name] = valueFor(schema, name, random);
  }
  if (random() < 0.2) {
    args[STRINGS[Math.floor(random() * 10)]!.slice(0, 20) || "extra"] = anyValue(random);
  }
  return args;
}

async function project(root: string): Promise<void> {
  await Deno.mkdir(`${root}/src`);
  await Deno.mkdir(`${root}/web`);
  await Deno.writeTextFile(
    `${root}/src/app.py`,
    "import os\n\nclass A:\n    def f(self, x):\n        return os.path.join(x)\n\n\ndef g():\n    return A().f('y')\n",
  );
  await Deno.writeTextFile(
    `${root}/src/lib.c`,
    "#include <stdio.h>\nint add(int a, int b) { return a + b; }\n",
  );
  await Deno.writeTextFile(
    `${root}/web/main.ts`,
    "export function hello(name: string): string {\n  return name;\n}\n",
  );
  await Deno.writeTextFile(`${root}/README.md`, "# fuzz\n");
}

/** Every line of every log file under the state directory, parsed. */
async function logLines(stateDir: string): Promise<unknown[]> {
  const lines: unknown[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".jsonl")) {
        for (const line of (await Deno.readTextFile(path)).split("\n")) {
          if (line.trim() !== "") lines.push(JSON.parse(line));
        }
      }
    }
  };
  await walk(`${stateDir}/interactions`);
  return lines;
}

Deno.test({
  name: "fuzzed arguments to every tool never stop the host, break the bound or skip the log",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const seed = Number(Deno.env.get("FUZZ_SEED") ?? Date.now() % 1_000_000);
    const random = generator(seed);
    await using root = await tempDir();
    await project(root.path);
    await using session = await connectStdio([root.path]);
    const tools: Tool[] = (await session.client.listTools()).tools;
    const calls = tools.flatMap((tool) =>
      Array.from({ length: CALLS_PER_TOOL }, () => ({ tool, args: argumentsFor(tool, random) }))
    );
    // Shuffled, so that writers and readers interleave.
    calls.sort(() => random() - 0.5);
    const deadline = Date.now() + BUDGET_MS;
    let answered = 0;
    let refused = 0;
    const over: string[] = [];
    const next = async (): Promise<void> => {
      for (let call = calls.pop(); call && Date.now() < deadline; call = calls.pop()) {
        try {
          const reply = await session.client.callTool(
            { name: call.tool.name, arguments: call.args },
            { timeout: 120_000 },
          );
          answered++;
          const bytes = new TextEncoder().encode(JSON.stringify(reply)).length;
          if (bytes > BOUND) over.push(`${call.tool.name}: ${bytes} bytes`);
        } catch (error) {
          // Refused at the door (too large, too deep), or too large for the client to send: not a
          // call. Anything else (a closed session, a reply the client rejects) is a failure.
          refused++;
          assert(
            /Cannot read the request|Invalid string length/.test(String(error)),
            `seed ${seed}: ${call.tool.name}: ${error}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, next));
    assertEquals(over, [], `seed ${seed}: replies over the bound`);
    assert(answered > tools.length, `seed ${seed}: only ${answered} calls answered`);
    const read = await session.call("read_file", { path: "README.md" });
    assertEquals(resultText(read), "# fuzz\n", `seed ${seed}`);
    // The log is written after the replies: wait for it to catch up (state, not time).
    const stateDir = `${root.path}/.toolhost`;
    let lines: unknown[] = [];
    for (const until = Date.now() + 30_000; Date.now() < until;) {
      lines = await logLines(stateDir);
      if (lines.length >= answered + 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const calls_logged = lines.filter((line) =>
      typeof (line as { tool?: unknown }).tool === "string"
    );
    assertEquals(calls_logged.length, answered + 1, `seed ${seed}: ${refused} refused`);
  },
});
