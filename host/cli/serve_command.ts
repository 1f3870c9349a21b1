/**
 * `toolhost serve` (and a compiled binary's `start`): audit this process's
 * permissions, then serve over MCP stdio in it, saying once what is in
 * effect and surviving any error no call caught.
 *
 * @module
 */

import { type HostStatus, statusParts } from "../../tools/observe/observation.ts";
import { auditProcess, processFlags } from "../../security/permissions.ts";
import type { HostConfig } from "../config/mod.ts";
import { serve } from "../transports/mod.ts";
import { createHost, type Host } from "../host.ts";
import type { HostLogger } from "../logger.ts";
import { assetPaths } from "../workers/mod.ts";
import { shellQuote } from "./mcp_config.ts";
import type { Printer } from "./printer.ts";
import { scopedCommand } from "./scoped_command.ts";

/**
 * Serve over MCP stdio in this process, unless its permissions are broader
 * than the roots and `allowBroad` is not given.
 *
 * @param config The resolved configuration.
 * @param allowBroad Whether to serve with permissions beyond the roots.
 * @param printer Where to say what happens.
 * @returns The exit code: 0 when serving ended, 1 when it failed, 2 when refused.
 */
export async function serveCommand(
  config: HostConfig,
  allowBroad: boolean,
  printer: Printer,
): Promise<number> {
  const findings = auditProcess(config.policy);
  for (const finding of findings) printer.err(`toolhost: permission audit: ${finding.detail}`);
  if (findings.some((finding) => finding.refuse) && !allowBroad) {
    printer.err(await refusal(config));
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

/** Why `serve` refuses broad permissions, with the scoped command line and the flags it needs. */
async function refusal(config: HostConfig): Promise<string> {
  const flags = processFlags(config.policy, {
    config: config.configFile ? [config.configFile] : [],
    read: await assetPaths(),
    run: config.ripgrep.path !== null ? [config.ripgrep.path] : [],
  });
  return `toolhost: refusing to serve with permissions broader than the roots. Run it scoped:\n  ${
    shellQuote(await scopedCommand(config))
  }\nor use "toolhost start", which does this for you. The flags it needs: ${flags.join(" ")}\n` +
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
 * An error as one line (a fatal error is said in one line on stderr).
 *
 * @param error What was thrown.
 * @returns `Name: message` on one line, at most 500 characters.
 */
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
