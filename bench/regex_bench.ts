/**
 * Engine micro-benchmark for `grep`'s line matching: JavaScript's own
 * (backtracking) `RegExp` against the linear-time engine grep uses
 * (`tools/files/_linear_regex.ts`: RE2 through `re2js`, with grep's
 * translation), in this process, over python3's standard library (`*.py`,
 * read once into memory). Each search does grep's work: a whole-file
 * multiline test, then each line of the files that pass. Then the
 * catastrophic patterns: JavaScript on a few dozen characters, the linear
 * engines on a megabyte.
 *
 * Run: `deno run -A bench/regex_bench.ts`, or `deno run -A --no-lock bench/regex_bench.ts
 * --candidates` (the candidates are not in `deno.lock`)
 *
 * `--candidates` adds the other linear engines that were weighed, loaded
 * from npm at run time (not dependencies of toolhost): `re2-wasm@1.0.2`
 * (Google's RE2 in WebAssembly) and `@adguard/re2-wasm@1.2.0`.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { linearRegex } from "../tools/files/_linear_regex.ts";

interface Tester {
  file(text: string): boolean;
  line(text: string): boolean;
}

type Engine = (pattern: string, ignoreCase: boolean) => Tester;

const ENGINES: Record<string, Engine> = {
  "RegExp (V8, backtracking)": (pattern, ignoreCase) => {
    const line = new RegExp(pattern, ignoreCase ? "iu" : "u");
    const file = new RegExp(pattern, ignoreCase ? "ium" : "um");
    return { file: (text) => file.test(text), line: (text) => line.test(text) };
  },
  "re2js (grep's)": (pattern, ignoreCase) => {
    const line = linearRegex(pattern, { ignoreCase });
    const file = linearRegex(pattern, { ignoreCase, multiline: true });
    return { file: (text) => file.test(text), line: (text) => line.test(text) };
  },
};

if (Deno.args.includes("--candidates")) {
  type Re2Class = new (pattern: string, flags: string) => { test(text: string): boolean };
  const candidates: Array<[string, string]> = [
    ["re2-wasm", "npm:re2-wasm@1.0.2"],
    ["@adguard/re2-wasm", "npm:@adguard/re2-wasm@1.2.0"],
  ];
  for (const [name, specifier] of candidates) {
    const { RE2 } = (await import(specifier)) as { RE2: Re2Class };
    ENGINES[name] = (pattern, ignoreCase) => {
      const line = new RE2(pattern, ignoreCase ? "iu" : "u");
      const file = new RE2(pattern, ignoreCase ? "ium" : "mu");
      return { file: (text) => file.test(text), line: (text) => line.test(text) };
    };
  }
}

/** Patterns with the same meaning in every engine here. */
const SEARCHES: Array<[string, boolean]> = [
  ["def __init__", false],
  ["SMTPRecipientsRefused", false],
  ["import\\s+os", false],
  ["\\bself\\.[a-z_]+\\s*=\\s*None\\b", false],
  ["todo|fixme|xxx", true],
  ["^class \\w+\\((?:object|Exception)\\):", false],
  ["[A-Z]{3,}_[A-Z]+\\d", false],
];

/** Catastrophic for a backtracking engine, and how many `a`s it gets (before one `!`). */
const CATASTROPHIC: Array<[string, number]> = [
  ["(a+)+$", 25],
  ["(a|aa)+b", 34],
  ["(.*a){20}$", 25],
];

async function stdlibTexts(): Promise<string[]> {
  const out = await new Deno.Command("python3", {
    args: ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"],
    stdout: "piped",
  }).output();
  const texts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory && entry.name !== "site-packages") await walk(path);
      else if (entry.isFile && entry.name.endsWith(".py")) {
        texts.push(new TextDecoder().decode(await Deno.readFile(path)));
      }
    }
  };
  await walk(new TextDecoder().decode(out.stdout).trim());
  return texts;
}

function grepLike(tester: Tester, texts: string[]): number {
  let hits = 0;
  for (const text of texts) {
    if (!tester.file(text)) continue;
    for (const line of text.split("\n")) if (tester.line(line)) hits++;
  }
  return hits;
}

const texts = await stdlibTexts();
const megabytes = texts.reduce((sum, text) => sum + text.length, 0) / 1e6;
const names = Object.keys(ENGINES);
console.log(`${texts.length} files, ${megabytes.toFixed(1)} M characters; best of 5 runs, ms`);
console.log(`| pattern | ${names.join(" | ")} | matching lines |`);
console.log(`|${[" --- ", ...names.map(() => " --- "), " --- "].join("|")}|`);
for (const [pattern, ignoreCase] of SEARCHES) {
  const cells: string[] = [];
  const counts = new Set<number>();
  for (const name of names) {
    const tester = ENGINES[name]!(pattern, ignoreCase);
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      const began = performance.now();
      counts.add(grepLike(tester, texts));
      best = Math.min(best, performance.now() - began);
    }
    cells.push(best.toFixed(0));
  }
  if (counts.size !== 1) throw new Error(`${pattern}: the engines disagree (${[...counts]})`);
  const label = `\`${pattern}\`${ignoreCase ? " (-i)" : ""}`;
  console.log(`| ${label} | ${cells.join(" | ")} | ${[...counts][0]} |`);
}

console.log("\nOne line of n `a`s and a `!`: ms (n)");
for (const [pattern, n] of CATASTROPHIC) {
  const cells = names.map((name, i) => {
    const size = i === 0 ? n : 1_000_000;
    const tester = ENGINES[name]!(pattern, false);
    const line = `${"a".repeat(size)}!`;
    const began = performance.now();
    tester.line(line);
    return `${(performance.now() - began).toFixed(0)} (${size})`;
  });
  console.log(`| \`${pattern}\` | ${cells.join(" | ")} |`);
}
