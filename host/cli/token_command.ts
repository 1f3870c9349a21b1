/**
 * `toolhost token add NAME | list | revoke NAME`: the HTTP clients of a
 * workspace (its primary root), each with a token of its own and rights of
 * its own. `add` prints the `.mcp.json` entry with the new token once; only
 * the token's SHA-256 is kept, in the user's config directory
 * (`../clients/store.ts`). A revocation holds at the server's next request.
 *
 * @module
 */

import { type ConfigOverrides, type HostConfig, hostPort, isWildcard } from "../config/mod.ts";
import * as posix from "node:path/posix";
import { isInside } from "../../security/policy.ts";
import { newToken } from "../../security/tokens.ts";
import {
  CLIENT_NAME,
  type ClientRights,
  clientStorePath,
  DEFAULT_CLIENT,
  describeRights,
  parseClass,
  readClients,
  tokenHash,
  writeClients,
} from "../clients/mod.ts";
import { launchCommand, mcpHttpConfig, shellQuote } from "./mcp_config.ts";
import { mcpPath } from "./commands.ts";
import type { Printer } from "./printer.ts";

/** The shell's tool, which `--no-shell` denies. */
const SHELL_TOOL = "run_shell";

/** The options `token add` reads (parsed with every command's: `main.ts`). */
export interface TokenValues {
  "read-only"?: boolean;
  tools?: string[];
  "deny-tools"?: string[];
  classes?: string[];
  "deny-classes"?: string[];
  roots?: string[];
  "no-shell"?: boolean;
  "no-net"?: boolean;
  "calls-per-minute"?: string;
  concurrent?: string;
}

/**
 * Run `toolhost token …`.
 *
 * @param config The resolved configuration (the roots, the HTTP address).
 * @param overrides The options as given (for the start command it prints).
 * @param rest The words after `token`.
 * @param run The token options and where to print.
 * @returns The exit code.
 */
export async function tokenCommand(
  config: HostConfig,
  overrides: ConfigOverrides,
  rest: readonly string[],
  run: { values: TokenValues; printer: Printer },
): Promise<number> {
  const { printer } = run;
  const store = clientStorePath();
  if (store === null) {
    printer.err(
      "toolhost: token needs XDG_CONFIG_HOME or HOME: the tokens are kept in your config directory",
    );
    return 2;
  }
  const [verb, name, ...extra] = rest;
  const workspace = config.policy.roots[0]!;
  if (isInside(await Deno.realPath(posix.dirname(store)).catch(() => store), config.policy.roots)) {
    printer.err(
      `toolhost: token: the list ${store} would lie inside a root, where tools could change it; set XDG_CONFIG_HOME to a directory outside the roots`,
    );
    return 2;
  }
  try {
    if (verb === "list" && name === undefined) return await listTokens(store, workspace, printer);
    if (verb === "revoke" && name !== undefined && extra.length === 0) {
      return await revokeToken(store, workspace, name, printer);
    }
    if (verb === "add" && name !== undefined && extra.length === 0) {
      return await addToken({ config, overrides, store, name, values: run.values, printer });
    }
  } catch (error) {
    printer.err(`toolhost: token ${verb}: ${(error as Error).message}`);
    return 2;
  }
  printer.err(
    "toolhost: usage: toolhost token add NAME --http [HOST:]PORT [rights…] | token list | token revoke NAME",
  );
  return 2;
}

/** `token add NAME`: mint, keep the hash, print the entry once. */
async function addToken(parts: {
  config: HostConfig;
  overrides: ConfigOverrides;
  store: string;
  name: string;
  values: TokenValues;
  printer: Printer;
}): Promise<number> {
  const { config, store, name, printer } = parts;
  const listen = config.http.listen;
  if (!listen || listen.port === 0) {
    throw new Error("needs --http [HOST:]PORT, the server's address: the entry it prints names it");
  }
  if (!CLIENT_NAME.test(name) || name === DEFAULT_CLIENT) {
    throw new Error(
      `"${name}" cannot name a client: letters, digits, "_", "." and "-", at most 64, not "${DEFAULT_CLIENT}"`,
    );
  }
  const rights = await rightsOf(parts.values, config.policy.roots);
  const workspace = config.policy.roots[0]!;
  const token = newToken();
  const record = {
    name,
    workspace,
    sha256: await tokenHash(token),
    rights,
    createdAt: new Date().toISOString(),
  };
  let taken = false;
  await writeClients(store, (records) => {
    taken = records.some((each) => each.workspace === workspace && each.name === name);
    return taken ? records : [...records, record];
  });
  if (taken) throw new Error(`a client "${name}" exists for ${workspace}: revoke it first`);
  const reach = isWildcard(listen.hostname) ? { ...listen, hostname: Deno.hostname() } : listen;
  const url = `http://${hostPort(reach)}${await mcpPath()}`;
  printer.out(JSON.stringify(mcpHttpConfig(url, token), null, 2));
  printer.err(
    `toolhost: client "${name}" (${describeRights(rights)}) added to ${store}; ` +
      `its token is shown only now. Start the server with: ${
        shellQuote(launchCommand(config, parts.overrides))
      }`,
  );
  return 0;
}

/** `token list`: the clients of this workspace, without their tokens. */
async function listTokens(store: string, workspace: string, printer: Printer): Promise<number> {
  const records = (await readClients(store, [])).filter((each) => each.workspace === workspace);
  if (records.length === 0) {
    printer.out(`No clients for ${workspace} (the server's own token, default, has every right)`);
    return 0;
  }
  for (const record of records) {
    printer.out(`${record.name}\t${record.createdAt}\t${describeRights(record.rights)}`);
  }
  return 0;
}

/** `token revoke NAME`: its next request is refused. */
async function revokeToken(
  store: string,
  workspace: string,
  name: string,
  printer: Printer,
): Promise<number> {
  let found = false;
  await writeClients(store, (records) => {
    const kept = records.filter((each) => !(each.workspace === workspace && each.name === name));
    found = kept.length < records.length;
    return kept;
  });
  if (!found) throw new Error(`no client "${name}" for ${workspace}`);
  printer.out(`Revoked "${name}": its next request is refused, in sessions already open too`);
  return 0;
}

/**
 * The rights the options give: `--no-shell` denies `run_shell`, `--no-net`
 * the net class; `--roots` must lie inside the host's roots.
 *
 * @param values The options.
 * @param hostRoots The host's roots (real paths).
 * @returns The rights.
 */
export async function rightsOf(
  values: TokenValues,
  hostRoots: readonly string[],
): Promise<ClientRights> {
  const roots = values.roots === undefined ? null : await Promise.all(
    values.roots.map(async (dir) => {
      const real = await Deno.realPath(dir).catch(() => {
        throw new Error(`--roots ${dir}: no such directory`);
      });
      if (!isInside(real, hostRoots)) {
        throw new Error(
          `--roots ${dir} is not inside the server's roots (${hostRoots.join(", ")})`,
        );
      }
      return real;
    }),
  );
  const deny = (values["deny-classes"] ?? []).map(parseClass);
  if (values["no-net"]) deny.push("net");
  const denyTools = [...(values["deny-tools"] ?? []), ...(values["no-shell"] ? [SHELL_TOOL] : [])];
  return {
    readOnly: values["read-only"] === true,
    tools: { allow: values.tools ?? [], deny: [...new Set(denyTools)] },
    classes: { allow: (values.classes ?? []).map(parseClass), deny: [...new Set(deny)] },
    roots,
    callsPerMinute: limitOf(values["calls-per-minute"], "--calls-per-minute"),
    concurrent: limitOf(values.concurrent, "--concurrent"),
  };
}

/** A positive whole number from an option, or null when it was not given. */
function limitOf(text: string | undefined, option: string): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`${option} takes a whole number of at least 1`);
  }
  return n;
}
