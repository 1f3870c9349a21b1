/**
 * The `net` section resolved: the egress policy of `fetch_url` and
 * `web_search`, the DNS servers and hosts file the network worker uses,
 * its limits, and its Deno `--allow-net` list.
 *
 * @module
 */

import {
  egressDenials,
  egressPermissions,
  type EgressPolicy,
  type HostEntry,
  parseHostEntry,
} from "../../security/egress.ts";
import { addressHost, formatAddress, parseAddress } from "../../security/addresses.ts";
import { NET_DEFAULTS } from "./defaults.ts";
import type { NetSection } from "./schema.ts";

/** The system files the network worker's resolver takes its servers and hosts from. */
export const RESOLV_CONF = "/etc/resolv.conf";
export const HOSTS_FILE = "/etc/hosts";

/** web_search's endpoint by default: DuckDuckGo's HTML results (seed 001's). */
export const DEFAULT_SEARCH_URL = "https://html.duckduckgo.com/html/";

/** What the web tools may reach and how. */
export interface NetSettings {
  /** Which hosts and addresses. */
  readonly policy: EgressPolicy;
  /** The DNS servers asked, as `address:port` (IPv6 in brackets); none when the system lists none. */
  readonly nameServers: readonly string[];
  /** Where the name servers come from (`/etc/resolv.conf`, `net.nameServer`). */
  readonly nameServersFrom: string;
  /** Names the hosts file gives addresses to (lower case), as the system resolver would. */
  readonly hosts: Readonly<Record<string, readonly string[]>>;
  /** A fetch's time limit, redirects included. */
  readonly timeoutMs: number;
  /** The most bytes downloaded for one page. */
  readonly maxBytes: number;
  /** Redirects followed. */
  readonly maxRedirects: number;
  /** web_search's endpoint. */
  readonly searchUrl: string;
  /** The User-Agent sent. */
  readonly userAgent: string;
  /** The network worker's Deno `--allow-net` list. */
  readonly permissions: readonly string[];
  /** The network worker's Deno `--deny-net` list (the `deny` entries Deno can hold). */
  readonly denials: readonly string[];
}

/**
 * Resolve the `net` section.
 *
 * A config file inside a root that is not trusted has had what loosens the
 * section taken out first (`project_config.ts`): what reaches here applies.
 *
 * @param section The section as parsed (`false`: off).
 * @param warnings Where what is ignored is said.
 * @returns The settings, or null when the web tools are off.
 * @throws {TypeError} When an entry or the name server is not valid.
 */
export async function netSettings(
  section: NetSection | undefined,
  warnings: string[],
): Promise<NetSettings | null> {
  if (section === false || section?.enabled === false) return null;
  const file = section ?? {};
  const policy = egressPolicy(file);
  const servers = file.nameServer;
  const nameServers = servers !== undefined
    ? [serverAddress(servers)]
    : resolvConfServers(await systemFile(RESOLV_CONF, warnings));
  return Object.freeze({
    policy,
    nameServers: Object.freeze(nameServers),
    nameServersFrom: servers !== undefined ? "net.nameServer" : RESOLV_CONF,
    hosts: Object.freeze(hostsEntries(await systemFile(HOSTS_FILE, warnings))),
    timeoutMs: (file.timeoutS ?? NET_DEFAULTS.timeoutS) * 1000,
    maxBytes: file.maxBytes ?? NET_DEFAULTS.maxBytes,
    maxRedirects: file.maxRedirects ?? NET_DEFAULTS.maxRedirects,
    searchUrl: file.searchUrl ?? DEFAULT_SEARCH_URL,
    userAgent: file.userAgent ??
      "Mozilla/5.0 (compatible; toolhost; +https://modelcontextprotocol.io)",
    permissions: Object.freeze(egressPermissions(policy, nameServers)),
    denials: Object.freeze(egressDenials(policy)),
  });
}

/** The policy's entries; an address in `allow` makes that non-public address reachable. */
function egressPolicy(file: Exclude<NetSection, false>): EgressPolicy {
  const entries = (list: readonly string[], unlocks: boolean, key: string): HostEntry[] =>
    list.map((text) => {
      try {
        return parseHostEntry(text, unlocks);
      } catch (error) {
        throw new TypeError(`Cannot use net.${key}: ${(error as Error).message}`);
      }
    });
  const allow = file.allow === undefined ? null : entries(file.allow, true, "allow");
  return Object.freeze({
    allow: allow && Object.freeze(allow),
    deny: Object.freeze(entries(file.deny ?? [], false, "deny")),
  });
}

/** `address[:port]` as the permission list and the resolver want it. */
function serverAddress(text: string): string {
  const match = /^\[([^\]]+)\](?::(\d+))?$|^([^:]+)(?::(\d+))?$|^([0-9a-f:]+)$/i.exec(text.trim());
  const address = match && parseAddress(match[1] ?? match[3] ?? match[5] ?? "");
  const port = Number(match?.[2] ?? match?.[4] ?? 53);
  if (!address || !(port >= 1 && port <= 65_535)) {
    throw new TypeError(
      `Cannot use net.nameServer "${text}": give an address, optionally with :port`,
    );
  }
  return `${addressHost(address)}:${port}`;
}

/** A system file's text; "" when it does not exist, and a warning when it cannot be read. */
async function systemFile(path: string, warnings: string[]): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      warnings.push(
        `${path} cannot be read (${
          (error as Error).message
        }): the web tools' resolver goes without it`,
      );
    }
    return "";
  }
}

/** The `nameserver` lines of resolv.conf, as `address:53`. */
function resolvConfServers(text: string): string[] {
  const servers: string[] = [];
  for (const line of text.split("\n")) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    const address = match && parseAddress(match[1]!.replace(/%.*$/, ""));
    if (!address) continue;
    servers.push(`${addressHost(address)}:53`);
  }
  return servers;
}

/** The hosts file: each name's addresses. */
function hostsEntries(text: string): Record<string, string[]> {
  const hosts = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const [address, ...names] = line.replace(/#.*$/, "").trim().split(/\s+/);
    const parsed = address ? parseAddress(address) : undefined;
    if (!parsed) continue;
    for (const name of names.map((each) => each.toLowerCase())) {
      hosts.set(name, [...(hosts.get(name) ?? []), formatAddress(parsed)]);
    }
  }
  return Object.fromEntries(hosts);
}
