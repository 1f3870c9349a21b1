/**
 * Where a client limited to some roots has its calls run: tool workers of
 * its own, whose resolver, Deno permissions and Landlock rules name only
 * those roots, and a shell sandbox of its own that mounts only them — so a
 * bug in the resolver still cannot reach another root: the kernel refuses.
 * One scope for each set of roots, made at its first call and kept while the
 * host runs. Its state (the symbol tools' indexes) is a directory of its own
 * inside the host's, which it cannot see out of; the host's own state
 * directory stays hidden to it.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { isInside, type Policy } from "../../security/policy.ts";
import { sha256Hex } from "../config/mod.ts";
import { CLIENT_SCOPES_DIR, trustStateDir } from "../state/mod.ts";
import type { HostLogger } from "../logger.ts";
import type { CallScope } from "../providers/mod.ts";

/**
 * A test-only fault (`tests/_faults/`), set before the host starts: a
 * scope's resolver and Deno permissions get every root and only Landlock
 * keeps the client's — the kernel alone must then refuse the other roots.
 */
const WIDE_RESOLVER_FAULT = Symbol.for("toolhost.fault.scopeResolverWide");

/** What makes a scope's workers and sandbox (the host's). */
export interface ScopeMaker {
  /**
   * Start a scope's parts for a policy.
   *
   * @param policy The scope's policy (its roots and state directory).
   * @param confineTo The policy Landlock confines its workers to (the same but for the fault).
   * @returns The scope, and how to stop it.
   */
  start(policy: Policy, confineTo: Policy): Promise<{ scope: CallScope; close(): void }>;
}

/** The host's scopes, by their roots. */
export class ClientScopes {
  #policy: Policy;
  #maker: ScopeMaker;
  #logger: HostLogger;
  #scopes = new Map<string, Promise<{ scope: CallScope; close(): void }>>();
  #closed = false;

  /**
   * @param policy The host's policy.
   * @param maker What starts a scope's workers and sandbox.
   * @param logger Where a new scope is said.
   */
  constructor(policy: Policy, maker: ScopeMaker, logger: HostLogger) {
    this.#policy = policy;
    this.#maker = maker;
    this.#logger = logger;
  }

  /**
   * The scope of some roots, started at first use.
   *
   * @param roots Real paths, each a root of the host or inside one.
   * @returns The scope.
   * @throws {Error} When a root is outside the host's roots, or the host is closing.
   */
  async scopeOf(roots: readonly string[]): Promise<CallScope> {
    if (this.#closed) throw new Error("the host is closing");
    const key = roots.join("\0");
    let started = this.#scopes.get(key);
    if (!started) {
      started = this.#start(roots);
      this.#scopes.set(key, started);
      started.catch(() => this.#scopes.delete(key));
    }
    return (await started).scope;
  }

  /** Stop every scope's workers. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = await Promise.allSettled(this.#scopes.values());
    for (const each of all) if (each.status === "fulfilled") each.value.close();
  }

  async #start(roots: readonly string[]): Promise<{ scope: CallScope; close(): void }> {
    const policy = await scopedPolicy(this.#policy, roots, this.#logger);
    const fault = (globalThis as Record<symbol, unknown>)[WIDE_RESOLVER_FAULT] === true;
    const wide = fault ? { ...policy, roots: this.#policy.roots } : policy;
    this.#logger.log("info", `Client scope started for ${roots.join(", ")}`);
    return await this.#maker.start(wide, policy);
  }
}

/**
 * A host policy narrowed to some of its roots: the roots, a state directory
 * and a scratch directory of the scope's own, and the host's state directory
 * hidden.
 *
 * @param policy The host's policy.
 * @param roots The scope's roots (real paths).
 * @param logger Where the state directory's checks report.
 * @returns The scope's policy.
 */
export async function scopedPolicy(
  policy: Policy,
  roots: readonly string[],
  logger: HostLogger,
): Promise<Policy> {
  const outside = roots.find((root) => !isInside(root, policy.roots));
  if (outside !== undefined || roots.length === 0) {
    throw new Error(`"${outside ?? ""}" is not inside the host's roots`);
  }
  const key = (await sha256Hex(new TextEncoder().encode(roots.join("\0")))).slice(0, 16);
  const stateDir = posix.join(policy.stateDir, CLIENT_SCOPES_DIR, key);
  await Deno.mkdir(stateDir, { recursive: true, mode: 0o700 });
  await trustStateDir(stateDir, { logger });
  const scratchDir = policy.scratch.dir === null ? null : `${policy.scratch.dir}/scope-${key}`;
  if (scratchDir !== null) await Deno.mkdir(scratchDir, { recursive: true, mode: 0o700 });
  return Object.freeze({
    ...policy,
    roots: Object.freeze([...roots]),
    stateDir,
    hiddenFiles: Object.freeze([...policy.hiddenFiles, policy.stateDir]),
    hiddenEntries: Object.freeze(policy.hiddenEntries.filter((each) => isInside(each.path, roots))),
    scratch: scratchDir === null ? policy.scratch : { dir: scratchDir },
  });
}
