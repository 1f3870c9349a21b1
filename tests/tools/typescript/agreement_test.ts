/**
 * The TS/JS tools agree on what a file defines, on code packages ship:
 * express 4's `lib/utils.js` (CommonJS: `exports.x = function …`) and
 * `lib/router/route.js` (`Route.prototype.dispatch = function …`), and zod
 * 3.25's `src/v4/classic/parse.ts` (`export const parse: … = …`). Every
 * symbol the outline lists, `ts_js_get_definition` shows at the same lines
 * and `find_usages` finds with its definition there; and every name the
 * file exports, as the TypeScript compiler binds it, is in the outline.
 */

import ts from "typescript";
import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { languageService, type OracleProject } from "../../../bench/_ts_oracle.ts";
import { copyFiles } from "../../../bench/_corpora.ts";
import { expressProject, zodProject } from "../../../bench/_ts_oracle_corpora.ts";
import { TOOLS } from "../../../tools/mod.ts";
import type { ToolContext, ToolResult } from "../../../tools/tool.ts";

interface Outlined {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  children: Outlined[];
}

async function call(
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const tool = TOOLS.find((each) => each.name === name)!;
  return await tool.run(args as never, ctx);
}

function flat(symbols: readonly Outlined[], scope = ""): Array<Outlined & { qualified: string }> {
  return symbols.flatMap((symbol) => {
    const qualified = scope ? `${scope}.${symbol.name}` : symbol.name;
    return [{ ...symbol, qualified }, ...flat(symbol.children, qualified)];
  });
}

/** The names a file exports, as the compiler binds them (CommonJS exports included). */
function exportedNames(project: OracleProject, path: string): string[] {
  const program = languageService(project).getProgram()!;
  const file = program.getSourceFile(`${project.root}/${path}`)!;
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(file) ?? (file as { symbol?: ts.Symbol }).symbol;
  return module ? checker.getExportsOfModule(module).map((each) => each.name) : [];
}

for (
  const [corpus, path] of [
    [expressProject, "lib/utils.js"],
    [expressProject, "lib/router/route.js"],
    [zodProject, "v4/classic/parse.ts"],
  ] as const
) {
  Deno.test(`the outline, ts_js_get_definition and find_usages agree on ${path}`, async () => {
    const shipped = await corpus();
    await using root = await tempDir();
    await copyFiles(shipped.root, root.path, shipped.files);
    const project = { ...shipped, root: await Deno.realPath(root.path) };
    const ctx = await toolContext(root.path);
    const outline = await call(ctx, "ts_js_get_code_outline", { path });
    const symbols = flat((outline.structuredContent as { symbols: Outlined[] }).symbols);
    const names = new Set(symbols.map((symbol) => symbol.qualified));
    for (const name of exportedNames(project, path)) {
      assert(
        names.has(name),
        `${name} is exported but not in the outline (${[...names].join(", ")})`,
      );
    }
    for (const symbol of symbols) {
      const where = `${path}:${symbol.start_line}-${symbol.end_line}`;
      const definition = await call(ctx, "ts_js_get_definition", { path, name: symbol.qualified });
      assert(!definition.isError, `${symbol.qualified}: ${JSON.stringify(definition.content)}`);
      const shown = definition.structuredContent as { start_line: number; end_line: number };
      assertEquals(`${path}:${shown.start_line}-${shown.end_line}`, where, symbol.qualified);
      const usages = await call(ctx, "find_usages", { path, name: symbol.qualified });
      assert(!usages.isError, `${symbol.qualified}: ${JSON.stringify(usages.content)}`);
      const found = (usages.structuredContent as { definition: string }).definition;
      const [, start] = /:(\d+)-\d+$/.exec(found) ?? [];
      assert(
        Number(start) >= symbol.start_line && Number(start) <= symbol.end_line,
        `${symbol.qualified}: find_usages defines it at ${found}, the outline at ${where}`,
      );
    }
  });
}
