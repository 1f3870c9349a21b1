/**
 * The layout rules docs/contributing.md's "Layout" section states, checked on the
 * source itself: no import cycles (between files, or between host/'s
 * folders), no function over 60 lines outside the tests, no file in
 * host/, security/ or tools/ over 300 lines; and below host/, only the
 * files that compose the families reach the tool registry (the parser
 * layer is handed its grammars, it does not look them up). Functions are
 * found with the TypeScript grammar the tools use.
 */
import { Language, type Node, Parser } from "web-tree-sitter";
import { assertEquals } from "./_assert.ts";

const REPO = new URL("../", import.meta.url);
const SOURCES = ["mod.ts", "host", "security", "tools", "sinks"];
const FUNCTIONS = new Set([
  "function_declaration",
  "generator_function_declaration",
  "method_definition",
  "arrow_function",
  "function_expression",
]);
const MAX_FUNCTION_LINES = 60;
const MAX_FILE_LINES = 300;
/** The folders whose files {@linkcode MAX_FILE_LINES} bounds. */
const SIZED = ["host/", "security/", "tools/"];
/** The tool registry: the family list and the registry of tools. */
const REGISTRY = ["tools/families.ts", "tools/registry.ts"];
/** The folders below host/, where only {@linkcode COMPOSERS} may reach the {@linkcode REGISTRY}. */
const BELOW = ["tools/", "security/", "sinks/"];
/**
 * The files below host/ that may reach the registry: each composes the
 * families. The tool lists (a worker's, the host's), what the families'
 * declarations grant and `compile` includes, the grammars they declare,
 * and the parser with those grammars, which the worker hands its tools.
 */
const COMPOSERS = [
  "tools/assets.ts",
  "tools/declared_tree_sitter.ts",
  "tools/grammars.ts",
  "tools/host_tools.ts",
  "tools/mod.ts",
];

async function sourceFiles(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const info = await Deno.stat(new URL(path, REPO));
    if (info.isFile) {
      if (path.endsWith(".ts")) out.push(path);
      return;
    }
    for await (const entry of Deno.readDir(new URL(path, REPO))) {
      await walk(`${path}/${entry.name}`);
    }
  };
  for (const path of SOURCES) await walk(path);
  return out.sort();
}

/** Relative imports and re-exports of a file, as repository paths. */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)) {
    out.push(new URL(match[1]!, new URL(file, REPO)).pathname.slice(REPO.pathname.length));
  }
  return out;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The files that import one of `targets`, directly or through others. */
function reaching(graph: ReadonlyMap<string, readonly string[]>, targets: string[]): string[] {
  const found = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [file, imports] of graph) {
      if (found.has(file)) continue;
      if (imports.some((to) => targets.includes(to) || found.has(to))) {
        found.add(file);
        grew = true;
      }
    }
  }
  return [...found].sort();
}

/**
 * The unit a file belongs to: a folder of host/ (`host/cli`), a file at
 * host/'s top (`host/logger.ts` is below every folder, `host/host.ts` above
 * them), or a top-level folder.
 */
function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] !== "host") return parts[0]!;
  return parts.length > 2 ? `host/${parts[1]}` : file;
}

function longFunctions(file: string, root: Node): string[] {
  const out: string[] = [];
  const visit = (node: Node): void => {
    if (FUNCTIONS.has(node.type)) {
      const lines = node.endPosition.row - node.startPosition.row + 1;
      if (lines > MAX_FUNCTION_LINES) {
        out.push(`${file}:${node.startPosition.row + 1} (${lines} lines)`);
      }
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(root);
  return out;
}

Deno.test("layout: no import cycles, no long functions, no long files in host/, security/ or tools/", async (t) => {
  await Parser.init();
  const wasm = new URL("node_modules/tree-sitter-typescript/tree-sitter-typescript.wasm", REPO);
  const parser = new Parser();
  parser.setLanguage(await Language.load(await Deno.readFile(wasm)));
  const files = await sourceFiles();
  const graph = new Map<string, string[]>();
  const long: string[] = [];
  const big: string[] = [];
  for (const file of files) {
    const text = await Deno.readTextFile(new URL(file, REPO));
    graph.set(file, importsOf(file, text));
    const tree = parser.parse(text)!;
    long.push(...longFunctions(file, tree.rootNode));
    tree.delete();
    const lines = text.split("\n").length - 1;
    const sized = SIZED.some((folder) => file.startsWith(folder));
    if (sized && lines > MAX_FILE_LINES) big.push(`${file} (${lines})`);
  }
  parser.delete();

  await t.step("no file imports itself through others", () => {
    assertEquals(cycles(graph), []);
  });
  await t.step("host/'s folders and the top-level folders import one way", () => {
    const folders = new Map<string, string[]>();
    for (const [file, imports] of graph) {
      const from = folderOf(file);
      const to = imports.map(folderOf).filter((folder) => folder !== from);
      folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])]);
    }
    assertEquals(cycles(folders), []);
  });
  await t.step("nothing below imports the registry", () => {
    const below = reaching(graph, REGISTRY).filter((file) =>
      BELOW.some((folder) => file.startsWith(folder))
    );
    assertEquals(below, COMPOSERS);
  });
  await t.step(`no function over ${MAX_FUNCTION_LINES} lines`, () => assertEquals(long, []));
  await t.step(`no file in ${SIZED.join(", ")} over ${MAX_FILE_LINES} lines`, () => {
    assertEquals(big, []);
  });
});
