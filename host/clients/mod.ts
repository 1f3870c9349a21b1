/**
 * Clients and their rights: the tokens `toolhost token add` mints (kept
 * as hashes in the user's config directory), what each client may call,
 * the limits on its calls, and the scope a client limited to some roots
 * runs in. Other folders import from here.
 *
 * @module
 */

export { ClientAccess, ClientDirectory, DEFAULT_CLIENT } from "./access.ts";
export {
  type ClientRights,
  describeRights,
  FULL_RIGHTS,
  HOST_WIDE_FAMILIES,
  isRights,
  parseClass,
  refusalOf,
  type ToolFacts,
} from "./rights.ts";
export { ClientScopes, scopedPolicy, type ScopeMaker } from "./scopes.ts";
export {
  CLIENT_NAME,
  type ClientRecord,
  clientStorePath,
  readClients,
  tokenHash,
  writeClients,
} from "./store.ts";
