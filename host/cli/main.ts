/**
 * The command line: `toolhost <command> [--root DIR]... [options]`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type Printer, terminalPrinter } from "./printer.ts";
import { type HostStatus, statusParts } from "../../tools/observe/_observation.ts";
import { auditProcess, processFlags } from "../../security/permissions.ts";
import { type ConfigOverrides, type HostConfig, loadConfig } from "../config/config.ts";
import { runDoctor } from "./doctor.ts";
import { logCommand, type LogFilters } from "./log_command.ts";
import { serve } from "../transports/server.ts";
import { createHost, type Host } from "../host.ts";
import {
  assetPaths,
  isCompiled,
  launchCommand,
  mcpConfig,
  overridesFrom,
  scopedCommand,
  SERVE_OPTIONS,
  shellQuote,
  startScoped,
} from "./launcher.ts";
import type { HostLogger } from "../logger.ts";

/** The usage text. */
export const USAGE = `toolhost — a sandboxed MCP tool host

Usage: toolhost <command> [--root DIR]... [--config FILE] [options]

Commands:
  start        serve over MCP stdio, re-launched with scoped Deno permissions (the usual way)
  serve        serve over MCP stdio in this process (audits its own permissions first)
  call TOOL [JSON]
               run one tool call through the same dispatcher and print the result
  tools        list the tools (--json for their schemas)
  flags        print the scoped command line that serves the roots
  mcp-config   print a ready .mcp.json entry that starts the sandboxed server
  doctor       probe both security boundaries live (--json for machine output)
  log          recent tool calls from the interaction log, as a table
               (--tool, --outcome, --path, --session, --since, --until, --limit)

Options:
  --root DIR                  a project root (repeatable; default: the current directory)
  --config FILE               the config file (default: <first root>/toolhost.json, optional)
  --ripgrep auto|off|PATH     use ripgrep for searches (default: auto)
  --unprotect GLOB            let tools write a protected path (repeatable; see the README)
  --allow-broad-permissions   let serve run with read/write beyond the roots
  --json                      machine-readable output (tools, doctor, call)
`;

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
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...SERVE_OPTIONS,
        "allow-broad-permissions": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        tool: { type: "string" },
        outcome: { type: "string" },
        path: { type: "string" },
        session: { type: "string" },
        since: { type: "string" },
        until: { type: "string" },
        limit: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
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
    // `start`, `flags` and `mcp-config` only compute a launch: the server makes its state directory.
    config = await loadConfig({
      ...overrides,
      createStateDir: !["start", "flags", "mcp-config"].includes(command),
    });
  } catch (error) {
    printer.err(`toolhost: ${(error as Error).message}`);
    return 2;
  }
  switch (command) {
    case "start":
      // A compiled binary's permissions are fixed when it is built: it serves in
      // this process, its tool workers still scoped (and under Landlock).
      if (isCompiled()) return await serveCommand(config, true, printer);
      return await startScoped(config);
    case "serve":
      return await serveCommand(config, values["allow-broad-permissions"], printer);
    case "call":
      return await callCommand(config, rest, values.json, printer);
    case "tools":
      return await toolsCommand(config, values.json, printer);
    case "flags":
      // Printed once and run later, whatever env the client gives it: grant the sinks' needs.
      printer.out(shellQuote(await scopedCommand(config, { efferent: "any" })));
      return 0;
    case "mcp-config":
      printer.out(JSON.stringify(mcpConfig(launchCommand(config, overrides)), null, 2));
      return 0;
    case "doctor":
      return await doctorCommand(config, overrides, values.json, printer);
    case "log": {
      const filters: LogFilters = {};
      for (const key of ["tool", "outcome", "path", "session", "since", "until"] as const) {
        if (values[key] !== undefined) filters[key] = values[key];
      }
      if (values.limit !== undefined) {
        filters.limit = Math.max(1, Number.parseInt(values.limit, 10) || 20);
      }
      return await logCommand(config, filters, printer);
    }
    default:
      printer.err(`toolhost: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

async function serveCommand(
  config: HostConfig,
  allowBroad: boolean,
  printer: Printer,
): Promise<number> {
  const findings = auditProcess(config.policy);
  for (const finding of findings) printer.err(`toolhost: permission audit: ${finding.detail}`);
  if (findings.some((finding) => finding.refuse) && !allowBroad) {
    const flags = processFlags(config.policy, {
      config: config.configFile ? [config.configFile] : [],
      read: await assetPaths(),
      run: config.ripgrep.path !== null ? [config.ripgrep.path] : [],
    });
    printer.err(
      `toolhost: refusing to serve with permissions broader than the roots. Run it scoped:\n  ${
        shellQuote(await scopedCommand(config))
      }\nor use "toolhost start", which does this for you. The flags it needs: ${
        flags.join(" ")
      }\n` +
        `Pass --allow-broad-permissions to serve anyway (tool code stays confined to its worker).`,
    );
    return 2;
  }
  let host: Host;
  try {
    host = await createHost({ config });
  } catch (error) {
    printer.err(`toolhost: cannot serve: ${oneLine(error)}`);
    return 1;
  }
  printer.err(`toolhost: ${statusLine(config, host.status())}`);
  const survive = surviveStrayErrors(host.logger);
  try {
    await serve(host);
  } catch (error) {
    printer.err(`toolhost: stopped serving: ${oneLine(error)}`);
    return 1;
  } finally {
    survive();
    await host.close();
  }
  return 0;
}

/**
 * While serving, an error no call caught (a rejected promise nobody awaited,
 * an exception in a callback) is logged, and the host keeps serving: no
 * request can make it exit.
 *
 * @returns A function that stops catching them.
 */
function surviveStrayErrors(logger: HostLogger): () => void {
  const onRejection = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    logger.log("error", `A promise was rejected and nothing handled it: ${oneLine(event.reason)}`);
  };
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    logger.log("error", `An exception was not caught: ${oneLine(event.error ?? event.message)}`);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);
  return () => {
    globalThis.removeEventListener("unhandledrejection", onRejection);
    globalThis.removeEventListener("error", onError);
  };
}

/** An error as one line (a fatal error is said in one line on stderr). */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s*\n\s*/g, " ").slice(0, 500);
}

/**
 * What is in effect, said once when serving starts (on stderr, which MCP
 * clients log): what keeps the tools in, and every capability that is not
 * in effect with why — never a silent fallback.
 *
 * @param config The configuration.
 * @param status What the host found at start.
 * @returns The line, from "serving" on.
 */
export function statusLine(config: HostConfig, status: HostStatus): string {
  return [`serving ${config.policy.roots.join(", ")}`, ...statusParts(status, config.mcpJson)]
    .join("; ");
}

async function callCommand(
  config: HostConfig,
  rest: string[],
  json: boolean,
  printer: Printer,
): Promise<number> {
  const [tool, raw = "{}"] = rest;
  if (!tool) {
    printer.err(
      `toolhost: call needs a tool name: toolhost call read_file '{"path": "README.md"}'`,
    );
    return 2;
  }
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch (error) {
    printer.err(`toolhost: cannot parse the arguments as JSON: ${(error as Error).message}`);
    return 2;
  }
  const host = await createHost({ config });
  try {
    const result = await host.call(tool, args, { session: "cli", client: "toolhost-cli" });
    if (json) printer.out(JSON.stringify(result, null, 2));
    else {for (const block of result.content) {
        printer.out(block.type === "text" ? block.text : JSON.stringify(block));
      }}
    return result.isError ? 1 : 0;
  } catch (error) {
    printer.err(`toolhost: ${(error as Error).message}`);
    return 2;
  } finally {
    await host.close();
  }
}

async function toolsCommand(config: HostConfig, json: boolean, printer: Printer): Promise<number> {
  const host = await createHost({ config });
  try {
    const tools = host.list();
    if (json) printer.out(JSON.stringify(tools, null, 2));
    else {
      const width = Math.max(...tools.map((tool) => tool.name.length));
      for (const tool of tools) {
        const kind = tool.annotations.readOnlyHint
          ? "read "
          : tool.annotations.destructiveHint
          ? "edit "
          : "write";
        printer.out(
          `${tool.name.padEnd(width)}  ${kind}  ${tool.description.split(/(?<=\.)\s/)[0]}`,
        );
      }
    }
    return 0;
  } finally {
    await host.close();
  }
}

async function doctorCommand(
  config: HostConfig,
  overrides: ConfigOverrides,
  json: boolean,
  printer: Printer,
): Promise<number> {
  const report = await runDoctor(config, overrides);
  if (json) printer.out(JSON.stringify(report, null, 2));
  else {
    printer.out(`toolhost doctor — roots: ${report.roots.join(", ")}`);
    for (const probe of report.probes) {
      printer.out(`${probe.ok ? "ok  " : "FAIL"}  ${probe.name}: ${probe.detail}`);
    }
    printer.out(report.ok ? "Both boundaries held." : "Not every probe passed: see FAIL above.");
  }
  return report.ok ? 0 : 1;
}
