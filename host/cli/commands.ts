/**
 * The modules of the commands, loaded when their command runs, so that a
 * command loads only what it uses (`mcp-config`, run at each client's setup,
 * loads none of them). They are loaded by a computed specifier: Deno reads
 * every module a literal `import()` names when the program starts. This
 * command line runs with every permission (`bin/toolhost`); the served
 * process imports literally (`serve_main.ts`). `deno task compile` includes
 * each module of {@linkcode LOADED_LATER}, which it cannot see.
 *
 * @module
 */

/** Every module loaded by a computed specifier, relative to this file. */
export const LOADED_LATER = [
  "./serve_command.ts",
  "./launcher.ts",
  "./tool_commands.ts",
  "./doctor.ts",
  "./log_command.ts",
  "./dashboard_command.ts",
  "./trust_command.ts",
  "./token_command.ts",
  "../transports/mod.ts",
  "../state/http_token.ts",
] as const;

/** Load one of {@linkcode LOADED_LATER} (a path not in the list does not type-check). */
function load<T>(path: (typeof LOADED_LATER)[number]): Promise<T> {
  return import(new URL(path, import.meta.url).href);
}

/** Each command's module, loaded when the command runs. */
export const COMMANDS = {
  serve: () => load<typeof import("./serve_command.ts")>("./serve_command.ts"),
  start: () => load<typeof import("./launcher.ts")>("./launcher.ts"),
  tools: () => load<typeof import("./tool_commands.ts")>("./tool_commands.ts"),
  doctor: () => load<typeof import("./doctor.ts")>("./doctor.ts"),
  log: () => load<typeof import("./log_command.ts")>("./log_command.ts"),
  dashboard: () => load<typeof import("./dashboard_command.ts")>("./dashboard_command.ts"),
  trust: () => load<typeof import("./trust_command.ts")>("./trust_command.ts"),
  token: () => load<typeof import("./token_command.ts")>("./token_command.ts"),
};

/**
 * The MCP endpoint's path, from the HTTP transport (loaded for `mcp-config --http` only).
 *
 * @returns The path.
 */
export async function mcpPath(): Promise<string> {
  return (await load<typeof import("../transports/mod.ts")>("../transports/mod.ts")).MCP_PATH;
}

/**
 * The HTTP token kept in the state directory (loaded for `mcp-config --http` only).
 *
 * @param stateDir The state directory.
 * @returns The token, made on first use.
 */
export async function httpTokenOf(stateDir: string): Promise<string> {
  const { httpToken } = await load<typeof import("../state/http_token.ts")>(
    "../state/http_token.ts",
  );
  return await httpToken(stateDir);
}
