/**
 * The scoped command line `toolhost start ARGS…` would run, computed as the
 * launcher computes it (in a process of its own, with the client's
 * environment: the user's config directory decides what it may read), and
 * printed as JSON: `{command, args, env}`. The fault tests run it with a
 * fault module preloaded.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { overridesFrom, SERVE_OPTIONS } from "../../host/cli/serve_options.ts";
import { scopedCommand } from "../../host/cli/scoped_command.ts";
import { loadConfig } from "../../host/config/mod.ts";

const { values } = parseArgs({ args: Deno.args, options: SERVE_OPTIONS, strict: true });
const config = await loadConfig({ ...overridesFrom(values), createStateDir: false, scan: false });
await Deno.stdout.write(
  new TextEncoder().encode(`${JSON.stringify(await scopedCommand(config))}\n`),
);
