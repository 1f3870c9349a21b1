/**
 * `toolhost serve` (and a compiled binary's `start`): audit this process's
 * permissions, then serve over MCP stdio in it, saying once what is in
 * effect and surviving any error no call caught. What it says on stderr
 * quotes paths, config values and errors: each is shown through
 * {@linkcode printable}, so that a line is one line and holds no control
 * character.
 *
 * @module
 */

import type { HostStatus } from "../../tools/observe/observation.ts";
import { statusParts } from "../../tools/observe/status_phrases.ts";
import { auditProcess, processFlags } from "../../security/permissions.ts";
import { printable } from "../../security/printable.ts";
import { missingGrants } from "./grants.ts";
import type { HostConfig } from "../config/mod.ts";
import { serve } from "../transports/server.ts";
import { createHost, type Host } from "../host.ts";
import type { FirstWorker } from "../first_worker.ts";
import type { HostLogger } from "../logger.ts";
import { assetPaths } from "../workers/mod.ts";
import { IGNORED_ENV } from "../../tools/assets.ts";
import { shellQuote } from "./mcp_config.ts";
import { startHooks, startHostTelemetry } from "./serve_hooks.ts";
import type { HooksServing } from "../hooks/mod.ts";
import type { Telemetry } from "../telemetry/mod.ts";
import { oneLine, type Printer } from "./printer.ts";
import { isCompiled, isPermissionError, scopedCommand, staleFlagsLine } from "./scoped_command.ts";

/**
 * Serve over MCP stdio in this process, unless its permissions are broader
 * than the roots and `allowBroad` is not given.
 *
 * @param config The resolved configuration.
 * @param allowBroad Whether to serve with permissions beyond the roots.
 * @param printer Where to say what happens.
 * @param firstWorker The host's first tool worker, when it was started ahead for this config.
 * @returns The exit code: 0 when serving ended, 1 when it failed, 2 when refused.
 */
export async function serveCommand(
  config: HostConfig,
  allowBroad: boolean,
  printer: Printer,
  firstWorker?: FirstWorker,
): Promise<number> {
  const findings = auditProcess(config.policy);
  for (const finding of findings) {
    printer.err(`toolhost: permission audit: ${printable(finding.detail)}`);
  }
  if (findings.some((finding) => finding.refuse) && !allowBroad) {
    printer.err(await refusal(config));
    return 2;
  }
  const missing = isCompiled() ? [] : await missingGrants(config);
  if (missing.length > 0) {
    const more = missing.length > 1 ? ` and ${missing.length - 1} more` : "";
    printer.err(printable(staleFlagsLine(`no permission to ${missing[0]}${more}`)));
    return 1;
  }
  let host: Host;
  try {
    host = await createHost({ config, ...(firstWorker ? { firstWorker } : {}) });
  } catch (error) {
    printer.err(failure("cannot serve", error));
    return 1;
  }
  const survive = surviveStrayErrors(host.logger);
  let hooks: HooksServing | undefined;
  let telemetry: Telemetry | undefined;
  try {
    telemetry = await startHostTelemetry(host, config);
    hooks = await startHooks(host, config, printer, telemetry);
    if (config.http.listen) {
      // The HTTP transport's modules are loaded only when it serves.
      const { serveOverHttp } = await import("./serve_http.ts");
      await serveOverHttp(host, config, printer, statusLine(config, host.status()));
    } else {
      printer.err(`toolhost: ${statusLine(config, host.status())}${waitingNote()}`);
      await serveStdio(host, config.http.drainMs);
    }
  } catch (error) {
    printer.err(failure("stopped serving", error));
    return 1;
  } finally {
    survive();
    await hooks?.close();
    await closeWithin(host, CLOSE_DEADLINE_MS);
    // The last calls' spans and metrics go out (the host's closing told their ends).
    await deadline(telemetry?.close(), EXPORT_DEADLINE_MS);
  }
  return 0;
}

/** Serve over stdio until the client ends it, or SIGTERM (calls in flight get `drainMs`). */
async function serveStdio(host: Host, drainMs: number): Promise<void> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  Deno.addSignalListener("SIGTERM", abort);
  try {
    await serve(host, undefined, { stop: stop.signal, drainMs });
  } finally {
    Deno.removeSignalListener("SIGTERM", abort);
  }
}

/** The longest the host takes to close once serving ended (the process exits next). */
const CLOSE_DEADLINE_MS = 500;

/** The longest the last export to an OpenTelemetry collector may take at exit. */
const EXPORT_DEADLINE_MS = 2_000;

/** Wait for work, but never past a deadline. */
async function deadline(work: Promise<void> | undefined, ms: number): Promise<void> {
  if (work === undefined) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([work.catch(() => {}), late]);
  clearTimeout(timer);
}

/**
 * Close the host (the log first), but never wait past a deadline: the
 * process exits next, and a client that closed our stdin waits for that.
 */
async function closeWithin(host: Host, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  const closed = host.close().then(() => "closed" as const, (error) => {
    host.logger.log("error", `Stopping failed: ${oneLine(error)}`);
    return "closed" as const;
  });
  if ((await Promise.race([closed, late])) === "late") {
    host.logger.log("warn", `Stopping took over ${ms} ms (an upstream server or sink); exiting`);
  }
  clearTimeout(timer);
}

/** A fatal error as one line: the stale-flags instruction when a permission was missing. */
function failure(what: string, error: unknown): string {
  return printable(
    isPermissionError(error) ? staleFlagsLine(error) : `toolhost: ${what}: ${oneLine(error)}`,
  );
}

/** The start-up line's ending when a person, not an MCP client, started the server. */
function waitingNote(): string {
  return Deno.stdin.isTerminal()
    ? `; waiting for an MCP client on stdin (see "toolhost mcp-config" to connect one)`
    : "";
}

/** Why `serve` refuses broad permissions, with the scoped command line and the flags it needs. */
async function refusal(config: HostConfig): Promise<string> {
  const flags = processFlags(config.policy, {
    config: config.configFile ? [config.configFile] : [],
    read: await assetPaths(),
    run: config.ripgrep.path !== null ? [config.ripgrep.path] : [],
    ignoreEnv: IGNORED_ENV,
  });
  return `toolhost: refusing to serve with permissions broader than the roots. Run it scoped:\n  ${
    printable(shellQuote(await scopedCommand(config)))
  }\nor use "toolhost start", which does this for you. The flags it needs: ${
    printable(flags.join(" "))
  }\n` +
    `Pass --allow-broad-permissions to serve anyway (tool code stays confined to its worker).`;
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

/**
 * What is in effect, said once when serving starts (on stderr, which MCP
 * clients log): what keeps the tools in, and every capability that is not
 * in effect with why — never a silent fallback. Shown through
 * {@linkcode printable}: a root, a reason or a server's error can neither
 * break the line (nor forge another) nor reach the terminal as a control.
 *
 * @param config The configuration.
 * @param status What the host found at start.
 * @returns The line, from "serving" on.
 */
export function statusLine(config: HostConfig, status: HostStatus): string {
  return printable(
    [`serving ${config.policy.roots.join(", ")}`, ...statusParts(status, config.mcpJson)]
      .join("; "),
  );
}
