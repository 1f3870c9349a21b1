/**
 * The TS/JS tools agree on what a file defines, on code packages ship:
 * express 4's `lib/utils.js` (CommonJS: `exports.x = function …`) and
 * `lib/router/route.js` (`Route.prototype.dispatch = function …`), and zod
 * 3.25's `src/v4/classic/parse.ts` (`export const parse: … = …`), asked of
 * toolhost in the launch users run. Every symbol the outline lists,
 * `ts_js_get_definition` shows at the same lines and `find_usages` finds with
 * its definition there; and every name the file exports, as the TypeScript
 * compiler binds it, is in the outline.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText } from "../../_mcp.ts";
import { languageService, moduleExports, type OracleProject } from "../../../bench/_ts_oracle.ts";
import { copyFiles } from "../../../bench/_corpora.ts";
import { expressProject, zodProject } from "../../../bench/_ts_oracle_corpora.ts";

/** The files, by corpus. */
const FILES = [
  ["express", "lib/utils.js"],
  ["express", "lib/router/route.js"],
  ["zod", "v4/classic/parse.ts"],
] as const;

interface Outlined {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  children: Outlined[];
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
  return moduleExports(program.getTypeChecker(), file).map((each) => each.name);
}

Deno.test("the outline, ts_js_get_definition and find_usages agree on real files", async (t) => {
  await using root = await tempDir();
  const corpora = { express: await expressProject(), zod: await zodProject() };
  const projects = new Map<string, OracleProject>();
  for (const [name, shipped] of Object.entries(corpora)) {
    await copyFiles(shipped.root, `${root.path}/${name}`, shipped.files);
    projects.set(name, { ...shipped, root: await Deno.realPath(`${root.path}/${name}`) });
  }
  await using session = await connectStdio([root.path]);
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await session.call(tool, args);
    assert(!result.isError, `${tool} ${JSON.stringify(args)}: ${resultText(result)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  for (const [corpus, file] of FILES) {
    await t.step(`${corpus}'s ${file}`, async () => {
      const path = `${corpus}/${file}`;
      const outline = await call("ts_js_get_code_outline", { path });
      const symbols = flat(outline.symbols as Outlined[]);
      const names = new Set(symbols.map((symbol) => symbol.qualified));
      for (const name of exportedNames(projects.get(corpus)!, file)) {
        assert(names.has(name), `${name} is exported but not in the outline (${[...names]})`);
      }
      for (const symbol of symbols) {
        const where = `${path}:${symbol.start_line}-${symbol.end_line}`;
        const shown = await call("ts_js_get_definition", { path, name: symbol.qualified });
        assertEquals(`${path}:${shown.start_line}-${shown.end_line}`, where, symbol.qualified);
        const usages = await call("find_usages", { path, name: symbol.qualified });
        const [, start] = /:(\d+)-\d+$/.exec(usages.definition as string) ?? [];
        assert(
          Number(start) >= symbol.start_line && Number(start) <= symbol.end_line,
          `${symbol.qualified}: find_usages defines it at ${usages.definition}, the outline at ${where}`,
        );
      }
    });
  }
});
