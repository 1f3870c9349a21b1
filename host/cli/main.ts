/**
 * The command line: `toolhost <command> [--root DIR]... [options]`.
 *
 * Each command lives in its own file: `serve_command.ts` (serve),
 * `tool_commands.ts` (call, tools), `doctor.ts`, `log_command.ts`,
 * `dashboard_command.ts`; `start`,
 * `flags` and `mcp-config` compute a launch (`launcher.ts`,
 * `scoped_command.ts`, `mcp_config.ts`).
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { parseArgs } from "node:util";
import {
  type ConfigOverrides,
  type HostConfig,
  hostPort,
  isWildcard,
  loadConfig,
} from "../config/mod.ts";
import { launchCommand, mcpConfig, mcpHttpConfig, shellQuote, TOOLHOST_BIN } from "./mcp_config.ts";
import { oneLine, type Printer, terminalPrinter } from "./printer.ts";
import {
  isCompiled,
  isPermissionError,
  scopedCommand,
  type ScopedLine,
  staleFlagsLine,
} from "./scoped_command.ts";
import { overridesFrom, SERVE_OPTIONS, TOKEN_OPTIONS } from "./serve_options.ts";
import { COMMANDS, httpTokenOf, mcpPath } from "./commands.ts";

export { oneLine } from "./printer.ts";

/** The usage text. */
export const USAGE = `toolhost — a sandboxed MCP tool host

Usage: toolhost <command> [--root DIR]... [--config FILE] [options]

Commands:
  start        serve over MCP stdio, re-launched with scoped Deno permissions (the usual way);
               with --http [HOST:]PORT, over Streamable HTTP at http://HOST:PORT/mcp instead
  serve        serve over MCP stdio (or --http) in this process (audits its own permissions first)
  call TOOL [JSON]
               run one tool call through the same dispatcher and print the result
  tools        list the tools (--json for their schemas)
  flags        print the scoped command line that serves the roots
  mcp-config   print a ready .mcp.json entry that starts the sandboxed server
               (--team: "toolhost" on the PATH and roots relative to here, to commit;
               --http [HOST:]PORT: the entry that reaches it over HTTP, URL and token)
  install      link ~/.local/bin/toolhost to bin/toolhost (run as "bin/toolhost install")
  trust        review the config files inside the roots (toolhost.json, .mcp.json), which only
               tighten the host until you trust them, and trust them as they are now (--yes:
               without asking; --list: what is trusted; --forget: untrust this start's files)
  token        HTTP clients with rights of their own: "token add NAME --http [HOST:]PORT" prints the
               entry with a new token once ([--read-only] [--tools|--deny-tools GLOB]... [--classes|
               --deny-classes write|exec|net|upstream]... [--roots DIR]... [--no-shell] [--no-net]
               [--calls-per-minute N] [--concurrent N]); "token list"; "token revoke NAME"
  doctor       probe both security boundaries live (--json for machine output)
  dashboard    print the dashboard's URL, with the token in its fragment, once the Hook API answers
               there (it never opens a browser); the Hook API is on in a server started with
               --hooks PORT (e.g. from "mcp-config --hooks PORT") or "hooks" in your own --config
  log          recent tool calls from the interaction log, as a table
               (--tool, --outcome, --path, --session, --since, --until, --limit);
               --subprocesses: the processes a session ran (--session, --tool, --limit;
               the latest session an MCP client spoke to by default);
               --all: doctor's probe calls and sessions too (left out by default)

Options:
  --root DIR                  a project root (repeatable; default: the current directory)
  --config FILE               the config file (default: <first root>/toolhost.json, optional)
  --ripgrep auto|off|PATH     use ripgrep for searches (default: auto)
  --unprotect GLOB            let tools write a protected path (repeatable; see docs/security.md)
  --http [HOST:]PORT          serve over Streamable HTTP (HOST defaults to 127.0.0.1)
  --hooks PORT                serve the Hook API and dashboard on 127.0.0.1:PORT (seed default 8999)
  --allow-remote              let --http bind an address other than loopback (warned at start)
  --conformance-fixtures      add the MCP conformance suite's test tools, with no token
                              (loopback only; for running the suite, never for a project)
  --allow-broad-permissions   let serve run with read/write beyond the roots
  --json                      machine-readable output (tools, doctor, call)
`;

/** Every command's options. */
const CLI_OPTIONS = {
  ...SERVE_OPTIONS,
  "allow-broad-permissions": { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  team: { type: "boolean", default: false },
  tool: { type: "string" },
  outcome: { type: "string" },
  path: { type: "string" },
  session: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  subprocesses: { type: "boolean", default: false },
  all: { type: "boolean", default: false },
  yes: { type: "boolean", default: false },
  list: { type: "boolean", default: false },
  forget: { type: "boolean", default: false },
  ...TOKEN_OPTIONS,
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The commands that only compute a launch: the server they start makes its state directory. */
const LAUNCH_ONLY: readonly string[] = [
  "start",
  "flags",
  "mcp-config",
  "install",
  "trust",
  "token",
];

/** The parsed command line. */
type ParsedLine = ReturnType<typeof parseCommandLine>;

/** One command to run: what it was given and what was resolved for it. */
interface Invocation {
  config: HostConfig;
  overrides: ConfigOverrides;
  values: ParsedLine["values"];
  rest: string[];
  printer: Printer;
}

/**
 * Run the CLI.
 *
 * @param argv The arguments after the program.
 * @param printer Where to print.
 * @returns The exit code.
 */
export async function main(
  argv: readonly string[],
  printer: Printer = terminalPrinter(),
): Promise<number> {
  let parsed: ParsedLine;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    printer.err(`toolhost: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === "help") {
    printer.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const overrides = overridesFrom(values);
  let config: HostConfig;
  try {
    // `mcp-config --http` prints the token, kept in the state directory.
    const makesState = !LAUNCH_ONLY.includes(command) ||
      (command === "mcp-config" && overrides.http?.http !== undefined);
    config = await loadConfig({ ...overrides, createStateDir: makesState });
  } catch (error) {
    printer.err(
      isPermissionError(error) ? staleFlagsLine(error) : `toolhost: ${(error as Error).message}`,
    );
    return 2;
  }
  return await runCommand(command, { config, overrides, values, rest, printer });
}

/** Parse the arguments after the program (throws on an unknown or malformed option). */
function parseCommandLine(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, options: CLI_OPTIONS });
}

/** Run one command on its resolved configuration. */
async function runCommand(command: string, run: Invocation): Promise<number> {
  const { config, overrides, values, printer } = run;
  const output = { json: values.json, printer };
  switch (command) {
    case "start":
      // A compiled binary's permissions are fixed when it is built: it serves in
      // this process, its tool workers still scoped (and under Landlock).
      if (isCompiled()) return await (await COMMANDS.serve()).serveCommand(config, true, printer);
      return await (await COMMANDS.start()).startScoped(config);
    case "serve": {
      const { serveCommand } = await COMMANDS.serve();
      return await serveCommand(config, values["allow-broad-permissions"], printer);
    }
    case "call":
      return await (await COMMANDS.tools()).callCommand(config, run.rest, output);
    case "tools":
      return await (await COMMANDS.tools()).toolsCommand(config, output);
    case "flags":
      // Printed once and run later, whatever env the client gives it: grant the sinks' needs.
      // The variables it needs (the sandbox's plan) go first, as a shell sets them.
      printer.out(withEnv(await scopedCommand(config, { efferent: "any" })));
      return 0;
    case "token":
      return await (await COMMANDS.token()).tokenCommand(config, overrides, run.rest, {
        values,
        printer,
      });
    case "mcp-config":
      if (config.http.listen) return await httpConfigCommand(config, overrides, printer);
      printer.out(
        JSON.stringify(mcpConfig(launchCommand(config, overrides, { team: values.team })), null, 2),
      );
      return 0;
    case "install":
      printer.err(
        `toolhost: install is bin/toolhost's: run "${fromFileUrl(TOOLHOST_BIN)} install"`,
      );
      return 2;
    case "doctor":
      return await (await COMMANDS.doctor()).doctorCommand(config, overrides, output);
    case "log": {
      const { logCommand, logFilters } = await COMMANDS.log();
      return await logCommand(config, logFilters(values), printer);
    }
    case "dashboard":
      return await (await COMMANDS.dashboard()).dashboardCommand(config, printer);
    case "trust":
      return await (await COMMANDS.trust()).trustCommand(config, {
        yes: values.yes,
        list: values.list,
        forget: values.forget,
        printer,
      });
    default:
      printer.err(`toolhost: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

/**
 * `mcp-config --http [HOST:]PORT`: the entry that reaches the server over
 * HTTP (its URL and token) on stdout, and the command that starts it on stderr.
 */
async function httpConfigCommand(
  config: HostConfig,
  overrides: ConfigOverrides,
  printer: Printer,
): Promise<number> {
  const listen = config.http.listen!;
  if (listen.port === 0) {
    printer.err("toolhost: mcp-config --http needs a port: the entry names it (e.g. --http 8765)");
    return 2;
  }
  if (config.http.conformanceFixtures) {
    printer.err(
      "toolhost: mcp-config --http prints an entry for a project; the conformance fixtures are for the suite only",
    );
    return 2;
  }
  // A wildcard address is no place to connect to: the entry names this machine.
  const reach = isWildcard(listen.hostname) ? { ...listen, hostname: Deno.hostname() } : listen;
  const url = `http://${hostPort(reach)}${await mcpPath()}`;
  printer.out(
    JSON.stringify(mcpHttpConfig(url, await httpTokenOf(config.policy.stateDir)), null, 2),
  );
  printer.err(
    `toolhost: start the server with: ${shellQuote(launchCommand(config, overrides))}`,
  );
  return 0;
}

/** A command line for a shell, with the variables it needs set before it. */
function withEnv(line: ScopedLine): string {
  const vars = Object.entries(line.env).map(([name, value]) =>
    `${name}=${shellQuote({ command: value, args: [] })}`
  );
  return [...vars, shellQuote(line)].join(" ");
}

/**
 * Run the command line and exit with its status; a fatal error is one line saying why.
 *
 * @param argv The arguments after the program.
 */
export async function cli(argv: readonly string[]): Promise<never> {
  try {
    Deno.exit(await main(argv));
  } catch (error) {
    Deno.stderr.writeSync(new TextEncoder().encode(`toolhost: ${oneLine(error)}\n`));
    Deno.exit(1);
  }
}

// bin/toolhost's entry for every command but `start`: it loads the command line and the one
// command's module, not the library's exports (mod.ts). These run with every permission (-A).
if (import.meta.main) await cli(Deno.args);
