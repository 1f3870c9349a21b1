/**
 * Name resolution in the network worker, as the system's resolver does it
 * but without the files it reads (the worker has no file access): the hosts
 * file's entries (read by the host at start), then the DNS servers of
 * `/etc/resolv.conf` (or `net.nameServer`), asked for A and AAAA records.
 * `localhost` and `*.localhost` are loopback and never asked for.
 *
 * @module
 */

import { type IpAddress, parseAddress } from "../../security/addresses.ts";
import { NetError, type WorkerNetSettings } from "./protocol.ts";

/** The loopback address a `localhost` name stands for. */
const LOOPBACK = parseAddress("127.0.0.1")!;

/**
 * The addresses of a host: itself when it is an address, else its hosts-file
 * entries, else what DNS answers.
 *
 * @param host The URL's host (lower case, IPv6 without brackets).
 * @param settings The worker's settings (hosts, name servers).
 * @param signal Stops the lookup.
 * @returns The addresses, at least one.
 * @throws {NetError} `net_error` when the name does not resolve.
 */
export async function resolveHost(
  host: string,
  settings: WorkerNetSettings,
  signal: AbortSignal,
): Promise<IpAddress[]> {
  const literal = parseAddress(host);
  if (literal) return [literal];
  if (host === "localhost" || host.endsWith(".localhost")) return [LOOPBACK];
  const listed = Object.hasOwn(settings.hosts, host) ? settings.hosts[host]! : [];
  if (listed.length > 0) return listed.map((address) => parseAddress(address)!);
  if (settings.nameServers.length === 0) {
    throw new NetError(
      "net_error",
      `Cannot resolve "${host}": no DNS server is configured (${settings.nameServersFrom} lists none; set net.nameServer)`,
    );
  }
  let lastError: unknown;
  for (const server of settings.nameServers) {
    try {
      const found = await askServer(host, server, signal);
      if (found.length > 0) return found;
      lastError = undefined;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      lastError = error;
    }
  }
  const why = lastError === undefined
    ? "it has no address (no A or AAAA record)"
    : (lastError as Error).message;
  throw new NetError("net_error", `Cannot resolve "${host}": ${why}`);
}

/** A and AAAA records from one server; a name with neither gives none. */
async function askServer(host: string, server: string, signal: AbortSignal): Promise<IpAddress[]> {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(server)!;
  const nameServer = { ipAddr: match[1]!, port: Number(match[2]) };
  const ask = async (type: "A" | "AAAA") => {
    try {
      return await Deno.resolveDns(host, type, { nameServer, signal });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
  };
  // IPv4 first: the network worker's permissions reach public IPv6 addresses only when unlocked.
  // One record type that fails leaves the other's answer good.
  const answers = await Promise.allSettled([ask("A"), ask("AAAA")]);
  const found = answers.flatMap((answer) => answer.status === "fulfilled" ? answer.value : []);
  if (found.length === 0 && answers[0].status === "rejected") throw answers[0].reason;
  return found.map((address) => parseAddress(address)).filter((a) => a !== undefined);
}
