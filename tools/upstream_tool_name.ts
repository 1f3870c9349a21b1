/**
 * The name an upstream server's tool is listed under (`tool_names.ts` has
 * the rule): `<server>__<tool>` where that keeps to it, else a name made to
 * fit, ended with a short hash of the whole original name.
 *
 * @module
 */

import { createHash } from "node:crypto";
import {
  MAX_TOOL_NAME_LENGTH,
  serverNameProblem,
  TOOL_NAME_PATTERN,
  UPSTREAM_SEPARATOR,
} from "./tool_names.ts";

/** How many hex digits of the original name's SHA-256 end a name that was made to fit. */
const HASH_DIGITS = 8;

/**
 * The name an upstream server's tool is listed under: `<server>__<tool>`
 * where that keeps to the rule, else a name made to fit (characters outside
 * the set replaced by `_`, cut, and ended with `-` and a hash of the whole
 * original name).
 *
 * @param server The server's name, as configured (see {@linkcode serverNameProblem}).
 * @param tool The tool's own name on that server.
 * @returns The listed name, within {@linkcode TOOL_NAME_PATTERN}.
 * @throws {RangeError} When the server's name cannot form valid names.
 */
export function upstreamToolName(server: string, tool: string): string {
  const problem = serverNameProblem(server);
  if (problem !== undefined) throw new RangeError(problem);
  const full = `${server}${UPSTREAM_SEPARATOR}${tool}`;
  if (TOOL_NAME_PATTERN.test(full)) return full;
  const suffix = `-${createHash("sha256").update(full).digest("hex").slice(0, HASH_DIGITS)}`;
  const kept = full.replace(/[^A-Za-z0-9_.-]/gu, "_");
  return `${kept.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}
