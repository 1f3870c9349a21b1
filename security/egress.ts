/**
 * The egress policy: which hosts and addresses `fetch_url` and `web_search`
 * may reach. It is checked on the URL's host, then on every address the
 * host resolves to, at every redirect hop, by the network worker that makes
 * the connection (`host/network/`), and that worker's Deno `--allow-net` is
 * made from the same policy ({@linkcode egressPermissions}), so the runtime
 * refuses a connection the check would have refused.
 *
 * - By default every public address is reachable and nothing else:
 *   loopback, private (RFC 1918, unique local), link-local (cloud
 *   metadata), CGNAT, multicast, unspecified and reserved addresses are not.
 * - `deny` entries are never reached: host names (globs) or addresses and
 *   ranges, each optionally with a port.
 * - `allow` holds names (globs) and addresses or ranges, each optionally
 *   with a port. Names make it a list of the only hosts reached (a URL
 *   whose host is an address is reached only if an address entry holds
 *   it). An address entry makes those (non-public) addresses reachable when
 *   it `unlocks` (it came from the user, not from a config file a tool could
 *   have written); a name never does: a DNS record pointing at 127.0.0.1 is
 *   refused even for an allowed name.
 *
 * @module
 */

import {
  addressHost,
  formatAddress,
  formatRange,
  type IpAddress,
  type IpRange,
  nonPublicKind,
  parseAddress,
  parseRange,
  publicRanges,
  rangeHolds,
  unmapped,
} from "./addresses.ts";

/** One `allow` or `deny` entry. */
export interface HostEntry {
  /** As written. */
  readonly text: string;
  /** A host-name glob (lower case; `*` any characters, `?` one), or null for an address entry. */
  readonly name: RegExp | null;
  /** The addresses, for an address or range entry. */
  readonly range: IpRange | null;
  /** The port, or null for any. */
  readonly port: number | null;
  /** An address entry that makes non-public addresses reachable (`allow` from the user). */
  readonly unlocks: boolean;
}

/** The egress policy. */
export interface EgressPolicy {
  /** Only the hosts these names match (when it has names), and these addresses besides the public ones; null: none. */
  readonly allow: readonly HostEntry[] | null;
  /** Never these. */
  readonly deny: readonly HostEntry[];
}

/**
 * Parse an entry: `example.com`, `*.example.com`, `docs.example.com:8443`,
 * `127.0.0.1:8080`, `10.0.0.0/8`, `[::1]:8080`, `docs.example.com:*`.
 *
 * @param text The entry.
 * @param unlocks Whether an address entry makes non-public addresses reachable.
 * @returns The entry.
 * @throws {TypeError} When it is neither a host glob nor an address or range, or unlocks an
 *   IPv6 range (Deno cannot be given one).
 */
export function parseHostEntry(text: string, unlocks = false): HostEntry {
  const { host, port } = splitPort(text.trim());
  const range = parseRange(host);
  if (range && unlocks && range.family === 6 && range.bits < 128) {
    throw new TypeError(
      `"${text}" is an IPv6 range: Deno's --allow-net takes none, so it cannot be reached; give whole addresses`,
    );
  }
  if (range) return Object.freeze({ text, name: null, range, port, unlocks });
  if (!/^[a-z0-9*?]([a-z0-9*?.-]*[a-z0-9*?])?$/i.test(host)) {
    throw new TypeError(
      `"${text}" is not a host: write a name (globs with * and ?), an address or a range, optionally with :port`,
    );
  }
  const pattern = host.toLowerCase().replace(/[.-]/g, "\\$&").replaceAll("*", ".*")
    .replaceAll("?", ".");
  return Object.freeze({ text, name: new RegExp(`^${pattern}$`), range: null, port, unlocks });
}

/** An entry's host and port (`*` or none: any). */
function splitPort(text: string): { host: string; port: number | null } {
  const bracket = /^\[([^\]]+)\](?::(\d+|\*))?$/.exec(text);
  const plain = /^([^:]+):(\d+|\*)$/.exec(text);
  const [host, port] = bracket ? [bracket[1]!, bracket[2]] : plain ? [plain[1]!, plain[2]] : [
    text,
    undefined,
  ];
  if (port === undefined || port === "*") return { host, port: null };
  const number = Number(port);
  if (number < 1 || number > 65_535) throw new TypeError(`"${text}" has no valid port`);
  return { host, port: number };
}

/**
 * The host of a URL as the policy sees it: lower case, no trailing dot,
 * IPv6 without brackets.
 *
 * @param url The URL.
 * @returns Its host and port (the scheme's default when none is written).
 */
export function urlHost(url: URL): { host: string; port: number } {
  // Every trailing dot goes (`evil.example..` is `evil.example` to DNS and to the policy).
  const host = url.hostname.toLowerCase().replace(/\.+$/, "").replace(/^\[(.*)\]$/, "$1");
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { host, port };
}

function matches(entry: HostEntry, host: string, address: IpAddress | undefined, port: number) {
  if (entry.port !== null && entry.port !== port) return false;
  if (entry.range) return address !== undefined && rangeHolds(entry.range, unmapped(address));
  return entry.name!.test(host);
}

/**
 * Why the policy refuses a host before it is resolved, or null: a `deny`
 * entry names it, or `allow` has names and neither they nor its address
 * entries name it.
 *
 * @param policy The policy.
 * @param host The URL's host ({@linkcode urlHost}).
 * @param port The port.
 * @returns The reason, or null.
 */
export function hostRefusal(policy: EgressPolicy, host: string, port: number): string | null {
  const literal = parseAddress(host);
  const denied = policy.deny.find((entry) => matches(entry, host, literal, port));
  if (denied) return `${host}:${port} matches net.deny entry "${denied.text}"`;
  const allow = policy.allow ?? [];
  // Names in `allow` make it a list of the only hosts; addresses alone only add to what is reachable.
  const listsNames = allow.some((entry) => entry.name !== null);
  if (listsNames && !allow.some((entry) => matches(entry, host, literal, port))) {
    return `${host}:${port} is not in net.allow`;
  }
  return null;
}

/**
 * Why the policy refuses an address a host resolved to, or null: a `deny`
 * entry holds it, or it is not public and no unlocking `allow` entry holds it.
 *
 * @param policy The policy.
 * @param host The host it is an address of (for the message).
 * @param address The address.
 * @param port The port.
 * @returns The reason, or null.
 */
export function addressRefusal(
  policy: EgressPolicy,
  host: string,
  address: IpAddress,
  port: number,
): string | null {
  const text = formatAddress(address);
  const via = text === host ? text : `${host} (${text})`;
  const denied = policy.deny.find((entry) => entry.range && matches(entry, host, address, port));
  if (denied) return `${via} matches net.deny entry "${denied.text}"`;
  const kind = nonPublicKind(address);
  if (kind === null) return null;
  const unlocked = policy.allow?.some((entry) =>
    entry.unlocks && entry.range && matches(entry, host, address, port)
  );
  return unlocked ? null : `${via} is a ${kind} address`;
}

/**
 * The network worker's Deno `--allow-net` list: every public address (on
 * any port), the addresses unlocking `allow` entries name (on their port;
 * an IPv6 range cannot be given to Deno, so only whole IPv6 addresses
 * unlock), and the DNS servers (on theirs). Host names are not in it: the worker
 * connects to the addresses it checked, never to a name.
 *
 * @param policy The policy.
 * @param nameServers `address:port` of each DNS server the worker asks.
 * @returns The list.
 */
export function egressPermissions(policy: EgressPolicy, nameServers: readonly string[]): string[] {
  const unlocked: string[] = [];
  for (const entry of policy.allow ?? []) {
    const range = entry.range;
    if (!entry.unlocks || !range) continue;
    const whole = range.bits === (range.family === 4 ? 32 : 128);
    const host = addressHost({ family: range.family, value: range.base });
    // Deno takes IPv4 ranges, and IPv6 addresses only as whole addresses in brackets.
    if (!whole && range.family === 4) unlocked.push(formatRange(range));
    else if (whole) {
      unlocked.push(entry.port === null ? host : `${host}:${entry.port}`);
    }
  }
  return [...new Set([...publicRanges(), ...unlocked, ...nameServers])];
}

/**
 * The network worker's Deno `--deny-net` list: the `deny` entries Deno can
 * hold (addresses, with their port; IPv4 ranges without one). The policy's
 * own check refuses the rest (names, ranges with a port) first.
 *
 * @param policy The policy.
 * @returns The list.
 */
export function egressDenials(policy: EgressPolicy): string[] {
  const denied: string[] = [];
  for (const { range, port } of policy.deny) {
    if (!range) continue;
    const whole = range.bits === (range.family === 4 ? 32 : 128);
    const host = addressHost({ family: range.family, value: range.base });
    if (whole) denied.push(port === null ? host : `${host}:${port}`);
    else if (range.family === 4 && port === null) denied.push(formatRange(range));
  }
  return [...new Set(denied)];
}
