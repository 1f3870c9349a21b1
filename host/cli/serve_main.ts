/**
 * The served process's entry: what the launcher replaces itself with
 * (`deno run <scoped flags> host/cli/serve_main.ts --root DIR …`). It
 * reads only the modules serving needs — not the library's exports
 * (`mod.ts`), the tools the workers run, nor the other commands — and once
 * the configuration is read it starts the first tool worker, then evaluates
 * the host's modules while that worker loads its tools. `serve_command.ts`
 * is imported by a literal specifier, so Deno reads it with this module at
 * start, before any code runs; a specifier computed at run time would need
 * read permission for every module it loads.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type HostConfig, loadConfig } from "../config/mod.ts";
import { oneLine, terminalPrinter } from "./printer.ts";
import { isPermissionError, staleFlagsLine } from "./scoped_command.ts";
import { startFirstWorker } from "../first_worker.ts";
import { missingGrants } from "./grants.ts";
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
  // Where a grant is missing (flags printed before an update), serve says so in one line; no
  // worker is started ahead to fail on it first.
  const first = (await missingGrants(config)).length === 0
    ? await startFirstWorker(config)
    : undefined;
  const { serveCommand } = await import("./serve_command.ts");
  return await serveCommand(config, false, printer, first);
}

if (import.meta.main) {
  try {
    Deno.exit(await serveMain(Deno.args));
  } catch (error) {
    Deno.stderr.writeSync(new TextEncoder().encode(`toolhost: ${oneLine(error)}\n`));
    Deno.exit(1);
  }
}
