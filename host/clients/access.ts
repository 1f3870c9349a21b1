/**
 * The clients an HTTP server knows: its own token (full rights) and the
 * tokens `toolhost token add` minted for its workspace. The list is read
 * again whenever it changed (one `stat` a request), so a revoked token's
 * next request is refused, in a live session too. Each client's limits (calls
 * a minute, calls at once) are kept here, for the host's whole life.
 *
 * @module
 */

import { errorResult } from "../../tools/registry.ts";
import { sameToken } from "../../security/tokens.ts";
import type { Admission } from "../providers/mod.ts";
import { type ClientRights, FULL_RIGHTS } from "./rights.ts";
import { readClients, tokenHash } from "./store.ts";

/** The window the calls-a-minute limit counts in. */
const MINUTE_MS = 60_000;

/** One client: its name, its rights, and its calls in the last minute and now. */
export class ClientAccess {
  /** Its name (the host's own token's client is `default`). */
  readonly name: string;
  /** What it may do. */
  readonly rights: ClientRights;
  /** The SHA-256 of its token (a session stays with the token that opened it). */
  readonly sha256: string;
  #recent: number[] = [];
  #running = 0;

  /**
   * @param name Its name.
   * @param rights Its rights.
   * @param sha256 Its token's hash.
   */
  constructor(name: string, rights: ClientRights, sha256: string) {
    this.name = name;
    this.rights = rights;
    this.sha256 = sha256;
  }

  /**
   * Whether a call may start now, within the client's limits.
   *
   * @param now The time, in ms.
   * @returns The refusal, or the function to call when the call ended.
   */
  admit(now: number = Date.now()): Admission {
    const { callsPerMinute, concurrent } = this.rights;
    if (callsPerMinute !== null) {
      while (this.#recent.length > 0 && this.#recent[0]! <= now - MINUTE_MS) this.#recent.shift();
      if (this.#recent.length >= callsPerMinute) {
        const waitS = Math.ceil((this.#recent[0]! + MINUTE_MS - now) / 1000);
        return {
          refusal: errorResult(
            "rate_limited",
            `client "${this.name}" made ${callsPerMinute} calls in the last minute, its limit; try again in ${waitS} s`,
          ),
        };
      }
    }
    if (concurrent !== null && this.#running >= concurrent) {
      return {
        refusal: errorResult(
          "rate_limited",
          `client "${this.name}" has ${concurrent} calls running, its limit; wait for one to end`,
        ),
      };
    }
    if (callsPerMinute !== null) this.#recent.push(now);
    this.#running++;
    let released = false;
    return {
      release: () => {
        if (!released) this.#running--;
        released = true;
      },
    };
  }
}

/** The name of the client that holds the host's own token. */
export const DEFAULT_CLIENT = "default";

/** The clients of one HTTP server. */
export class ClientDirectory {
  #store: string | null;
  #workspace: string;
  #roots: readonly string[];
  #own: ClientAccess;
  #ownToken: string;
  #stamp = "";
  #byHash = new Map<string, ClientAccess>();
  #loading: Promise<void> | undefined;
  #onError: (message: string) => void;

  /**
   * @param options The list's path (null: no list), the workspace (the primary root), the roots,
   *   the host's own token with its hash, and where a list that cannot be read is said.
   */
  constructor(options: {
    store: string | null;
    workspace: string;
    roots: readonly string[];
    token: string;
    tokenSha256: string;
    onError?: (message: string) => void;
  }) {
    this.#onError = options.onError ?? (() => {});
    this.#store = options.store;
    this.#workspace = options.workspace;
    this.#roots = options.roots;
    this.#ownToken = options.token;
    this.#own = new ClientAccess(DEFAULT_CLIENT, FULL_RIGHTS, options.tokenSha256);
  }

  /**
   * The client a bearer token belongs to, as the list says now.
   *
   * @param token The token sent.
   * @returns The client, or null when the token is no client's.
   */
  async authenticate(token: string): Promise<ClientAccess | null> {
    if (sameToken(token, this.#ownToken)) return this.#own;
    await this.#fresh();
    return this.#byHash.get(await tokenHash(token)) ?? null;
  }

  /** Read the list again when it changed since it was last read (a rename makes a new inode). */
  async #fresh(): Promise<void> {
    if (this.#store === null) return;
    let stamp: string;
    try {
      const info = Deno.statSync(this.#store);
      stamp = `${info.ino}:${info.mtime?.getTime()}:${info.size}`;
    } catch {
      stamp = "none";
    }
    if (stamp === this.#stamp) return await this.#loading;
    this.#stamp = stamp;
    this.#loading = this.#load(stamp === "none");
    await this.#loading;
  }

  async #load(none: boolean): Promise<void> {
    // A list that cannot be read admits no client but the host's own token (it fails closed).
    const records = none ? [] : await readClients(this.#store!, this.#roots).catch((error) => {
      this.#onError(
        `Cannot read the clients' tokens in ${this.#store}: ${error}; only the server's own token is taken`,
      );
      return [];
    });
    const next = new Map<string, ClientAccess>();
    for (const record of records) {
      if (record.workspace !== this.#workspace) continue;
      // A client still listed keeps its limits' counts (a record is never changed, only removed).
      const kept = this.#byHash.get(record.sha256);
      next.set(record.sha256, kept ?? new ClientAccess(record.name, record.rights, record.sha256));
    }
    this.#byHash = next;
  }
}
