/**
 * A test-only fault, preloaded into the served process (`launchHttp`'s
 * `fault`): a client scope's resolver and Deno permissions get every root,
 * and only Landlock keeps the client's (`host/clients/scopes.ts` reads the
 * mark when it starts a scope). What the client then reaches of another
 * root, the kernel alone decides.
 *
 * @module
 */

(globalThis as Record<symbol, unknown>)[Symbol.for("toolhost.fault.scopeResolverWide")] = true;
