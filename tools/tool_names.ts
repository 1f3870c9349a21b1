/**
 * Tool names within MCP's rule: 1 to 64 of `A-Z a-z 0-9 _ . -`, which keeps
 * to both forms of it: SEP-986 (1 to 64 characters, `/` allowed) and the
 * 2025-11-25 specification as published (1 to 128, no `/`; its SDK warns of
 * a `/`). Every local and host-side tool's name keeps to it as written. An
 * upstream server's tool is listed as `<server>__<tool>`, and where that
 * would break the rule (a long name, a space) it is listed under a name made
 * from it deterministically (`upstream_tool_name.ts`: what is outside the set
 * becomes `_`, the name is cut to fit, and a short hash of the whole original
 * name ends it, so that the same upstream gives the same names at every start
 * and two names never meet). The rule is kept apart from the hash so that the
 * launcher, which checks servers' names, loads no hashing.
 *
 * @module
 */

/** What a tool name may be (within SEP-986's `^[A-Za-z0-9_./-]{1,64}$` and 2025-11-25's rule). */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z0-9_.-]{1,64}$/;

/** The longest a tool name may be. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Between an upstream server's name and its tool's name, in the listed name. */
export const UPSTREAM_SEPARATOR = "__";

/** The longest an upstream server's name may be (what is left holds its tools' names). */
export const MAX_SERVER_NAME_LENGTH = 32;

/**
 * Why an upstream server's name cannot form valid tool names, if it cannot:
 * it must be 1 to 32 of `A-Z a-z 0-9 _ . -`, and hold no `__` nor end
 * with `_` (the separator must be found where it is).
 *
 * @param server The server's name, as configured.
 * @returns The problem, in a sentence, or `undefined` when the name serves.
 */
export function serverNameProblem(server: string): string | undefined {
  const why = whyNot(server);
  return why === undefined ? undefined : `Cannot use upstream server name "${server}": ${why} ` +
    `(its tools are listed as "${server}${UPSTREAM_SEPARATOR}<tool>")`;
}

function whyNot(server: string): string | undefined {
  if (server.length === 0) return "it is empty";
  if (server.length > MAX_SERVER_NAME_LENGTH) {
    return `it is ${server.length} characters long, the limit is ${MAX_SERVER_NAME_LENGTH}`;
  }
  if (!TOOL_NAME_PATTERN.test(server)) {
    return `it may hold only letters, digits, "_", "." and "-"`;
  }
  if (server.includes(UPSTREAM_SEPARATOR) || server.endsWith("_")) {
    return `it may not hold "${UPSTREAM_SEPARATOR}" nor end with "_"`;
  }
  return undefined;
}
