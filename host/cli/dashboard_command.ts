/**
 * `toolhost dashboard`: the dashboard's URL, with the Hook API's token in
 * its fragment (which a browser never sends to a server), printed only
 * when this host's Hook API answers there; else what is wrong and how to
 * turn it on. It opens nothing by itself.
 *
 * Whether it answers is asked without the token: `GET /status` answers
 * 401, and the 401 names the token file its server uses, which must be
 * this state directory's (so the token never goes to whatever else may
 * listen on the port).
 *
 * @module
 */

import { printable } from "../../security/printable.ts";
import { type HostConfig, hostPort } from "../config/mod.ts";
import { HOOKS_TOKEN_FILE, hooksToken } from "../state/mod.ts";
import type { Printer } from "./printer.ts";

/** How long the Hook API has to answer. */
const PROBE_MS = 3000;

/** What answers at the Hook API's address. */
type Probe =
  | { kind: "ours" }
  | { kind: "nothing"; why: string }
  | { kind: "other"; why: string };

/**
 * Print the dashboard's URL when this host's Hook API answers at it.
 *
 * @param config The configuration (`hooks`, the state directory).
 * @param printer Where the URL (stdout) and the advice (stderr) go.
 * @returns 0 with the URL printed; 1 when nothing (or something else) answers; 2 when the Hook API is off.
 */
export async function dashboardCommand(config: HostConfig, printer: Printer): Promise<number> {
  const hooks = config.hooks;
  if (hooks === null) {
    printer.err(turnItOn(config));
    return 2;
  }
  if (hooks.port === 0) {
    printer.err(
      "toolhost: hooks.port is 0: the port is chosen at start, and the start-up line says it; give a port to have a fixed URL",
    );
    return 2;
  }
  const base = `http://${hostPort(hooks)}/`;
  const tokenFile = `${config.policy.stateDir}/${HOOKS_TOKEN_FILE}`;
  const probe = await probeHooks(base, tokenFile);
  if (probe.kind === "nothing") {
    printer.err(
      `toolhost: nothing listens at ${base} now (${probe.why}), so the dashboard is not there. It lives while a server with the Hook API runs: for a stdio client, the one the client starts from "toolhost mcp-config --hooks ${hooks.port}"'s entry, while the client runs it; or "toolhost start --hooks ${hooks.port}". Run this again once it runs`,
    );
    return 1;
  }
  if (probe.kind === "other") {
    printer.err(`toolhost: ${base} is not this host's Hook API: ${printable(probe.why)}`);
    return 1;
  }
  const token = await hooksToken(config.policy.stateDir);
  printer.out(`${base}#token=${encodeURIComponent(token)}`);
  return 0;
}

/** What to do when the Hook API is off. */
function turnItOn(config: HostConfig): string {
  const ignored = config.warnings.find((line) => line.includes('"hooks"'));
  return [
    "toolhost: the Hook API is off, so there is no dashboard. Turn it on, then run this again:",
    '  - for a stdio client (Claude Code, Cursor, ...): "toolhost mcp-config --hooks 8999" prints the entry that serves it; the dashboard lives while the client runs that server',
    '  - in your own config file, outside the roots: "hooks": {"port": 8999}, given with --config FILE (to the server and to "toolhost dashboard" alike)',
    '  - on the command line: "toolhost start --hooks 8999"',
    ignored === undefined
      ? '  A "hooks" section in a toolhost.json inside the roots counts only once you trust that file ("toolhost trust"): project content only tightens the host'
      : `  ${printable(ignored)}`,
  ].join("\n");
}

/**
 * Ask `GET /status` without the token: this host's Hook API answers 401
 * naming its token file.
 */
async function probeHooks(base: string, tokenFile: string): Promise<Probe> {
  let response: Response;
  try {
    response = await fetch(new URL("status", base), { signal: AbortSignal.timeout(PROBE_MS) });
  } catch (error) {
    const why = error instanceof DOMException && error.name === "TimeoutError"
      ? `no answer in ${PROBE_MS / 1000} s`
      : "the connection was refused";
    return { kind: "nothing", why };
  }
  const text = await response.text();
  let named: unknown;
  try {
    named = (JSON.parse(text) as { token_file?: unknown }).token_file;
  } catch {
    // Not JSON: not a Hook API.
  }
  if (response.status === 401 && named === tokenFile) return { kind: "ours" };
  if (response.status === 401 && typeof named === "string") {
    return {
      kind: "other",
      why:
        `a toolhost Hook API answers there for another state directory (its token is "${named}", this one's "${tokenFile}"): give the same --root and --config as that server`,
    };
  }
  return {
    kind: "other",
    why:
      `something answers there, but not as toolhost's Hook API does (HTTP ${response.status}); is another program, or an older toolhost, using port ${
        new URL(base).port
      }?`,
  };
}
