/**
 * The bearer token HTTP clients must send: made at first use, kept in the
 * state directory with mode 0600 (tools and the shell never see that
 * directory), and taken only from a state directory this host made — a
 * token shipped in a cloned repository's `.toolhost/` is set aside with the
 * rest of that directory, never used.
 *
 * @module
 */

import { newToken } from "../../security/tokens.ts";
import { type StateDirOptions, trustedStateFile } from "./state_dir.ts";

/** The token file's name in the state directory. */
export const TOKEN_FILE = "http-token";

/**
 * The Hook API's token file: a token of its own, never printed by
 * `mcp-config` (an MCP client's config, which may lie in the project, holds
 * the HTTP token; it must not also answer approvals).
 */
export const HOOKS_TOKEN_FILE = "hooks-token";

/** The shortest token taken from the file (a new one is 43 characters). */
const MIN_TOKEN_CHARS = 32;

/**
 * The token, from `<stateDir>/http-token`, made when there is none: 32
 * random bytes, base64url.
 *
 * @param stateDir The state directory (it exists).
 * @param options The logger the state directory's checks report to.
 * @returns The token.
 * @throws {Deno.errors.PermissionDenied} When the file is readable by others (its mode is not 0600).
 */
export function httpToken(stateDir: string, options: StateDirOptions = {}): Promise<string> {
  return stateToken(stateDir, TOKEN_FILE, options);
}

/**
 * The Hook API's token, from `<stateDir>/hooks-token`, made like the HTTP one.
 *
 * @param stateDir The state directory (it exists).
 * @param options The logger the state directory's checks report to.
 * @returns The token.
 * @throws {Deno.errors.PermissionDenied} When the file is readable by others.
 */
export function hooksToken(stateDir: string, options: StateDirOptions = {}): Promise<string> {
  return stateToken(stateDir, HOOKS_TOKEN_FILE, options);
}

/** A token file of the state directory: read when it is sound, else made. */
async function stateToken(
  stateDir: string,
  file: string,
  options: StateDirOptions,
): Promise<string> {
  const path = `${stateDir}/${file}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    const text = await trustedStateFile(stateDir, file, options);
    if (text !== undefined) {
      const mode = (await Deno.lstat(path)).mode;
      if (mode !== null && (mode & 0o077) !== 0) {
        throw new Deno.errors.PermissionDenied(
          `Cannot use the token "${path}": others may read it (mode ${
            (mode & 0o777).toString(8)
          }); delete it, and a new one is made at the next start`,
        );
      }
      if (text.trim().length >= MIN_TOKEN_CHARS) return text.trim();
      await Deno.remove(path);
    }
    const token = newToken();
    try {
      await Deno.writeTextFile(path, `${token}\n`, { mode: 0o600, createNew: true });
      return token;
    } catch (error) {
      // Another start made it meanwhile: read that one.
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }
  throw new Deno.errors.AlreadyExists(`Cannot make the token "${path}": it keeps changing`);
}
