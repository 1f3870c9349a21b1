/**
 * The served process's entry: what the launcher replaces itself with
 * (`deno run <scoped flags> host/cli/serve_main.ts --root DIR …`). It
 * imports the configuration and `serve` statically and nothing else — not
 * the library's exports (`mod.ts`), the tools the workers run, nor the other
 * commands — so that the process reads only the modules serving needs, and
 * loads none at run time (a module first loaded by a scoped process can wait
 * on Deno's cache).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type HostConfig, loadConfig } from "../config/mod.ts";
import { oneLine, terminalPrinter } from "./printer.ts";
import { isPermissionError, staleFlagsLine } from "./scoped_command.ts";
import { serveCommand } from "./serve_command.ts";
import { overridesFrom, SERVE_OPTIONS } from "./serve_options.ts";

/**
 * Serve as `toolhost serve` does, with the options the launcher passes.
 *
 * @param argv The options (`--root`, `--config`, `--ripgrep`, …).
 * @returns The exit code: 0 when serving ended, 1 when it failed, 2 when refused.
 */
export async function serveMain(argv: readonly string[]): Promise<number> {
  const printer = terminalPrinter();
  let config: HostConfig;
  try {
    const { values } = parseArgs({ args: [...argv], options: SERVE_OPTIONS, strict: true });
    config = await loadConfig({ ...overridesFrom(values), createStateDir: true });
  } catch (error) {
    printer.err(
      isPermissionError(error) ? staleFlagsLine(error) : `toolhost: ${(error as Error).message}`,
    );
    return 2;
  }
  return await serveCommand(config, false, printer);
}

if (import.meta.main) {
  try {
    Deno.exit(await serveMain(Deno.args));
  } catch (error) {
    Deno.stderr.writeSync(new TextEncoder().encode(`toolhost: ${oneLine(error)}\n`));
    Deno.exit(1);
  }
}
