/**
 * Serving over Streamable HTTP: where (`--http [HOST:]PORT`, the command
 * line's alone, so that a config file in a cloned repository cannot open a
 * port), how (the `http` section) and with which bearer token.
 *
 * @module
 */

import { HTTP_DEFAULTS } from "./defaults.ts";
import type { HttpSection } from "./schema.ts";

/** Where to listen. */
export interface Listen {
  /** The address bound. */
  hostname: string;
  /** The port (0: the system picks one). */
  port: number;
}

/** How the host serves over HTTP, resolved. */
export interface HttpSettings {
  /** Where to listen, or null: over stdio. */
  listen: Listen | null;
  /** `--allow-remote`: bind an address other than loopback. */
  allowRemote: boolean;
  /** `--conformance-fixtures`: the conformance suite's fixtures, no token, loopback only. */
  conformanceFixtures: boolean;
  /** An HTTP session idle this long is closed. */
  idleTimeoutMs: number;
  /** On SIGTERM, calls in flight get this long. */
  drainMs: number;
  /** Most HTTP sessions open at once. */
  maxSessions: number;
}

/** The command line's HTTP options. */
export interface HttpFlags {
  /** `--http [HOST:]PORT`. */
  http?: string;
  /** `--allow-remote`. */
  allowRemote?: boolean;
  /** `--conformance-fixtures`. */
  conformanceFixtures?: boolean;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * Whether an address is loopback.
 *
 * @param hostname The address.
 * @returns True for 127.0.0.1, localhost and ::1.
 */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Whether an address binds every interface (0.0.0.0, ::).
 *
 * @param hostname The address.
 * @returns True for a wildcard.
 */
export function isWildcard(hostname: string): boolean {
  return hostname === "0.0.0.0" || hostname === "::" || hostname === "[::]";
}

/**
 * An address as a URL writes it: an IPv6 address in brackets.
 *
 * @param hostname The address.
 * @returns `127.0.0.1`, `[::1]`.
 */
export function bracketed(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/**
 * An address and port as a URL authority writes them (`[::1]:8765`).
 *
 * @param listen The address and port.
 * @returns `host:port`.
 */
export function hostPort(listen: Listen): string {
  return `${bracketed(listen.hostname)}:${listen.port}`;
}

/**
 * Parse `[HOST:]PORT` (HOST defaults to 127.0.0.1; `[::1]:PORT` for IPv6).
 *
 * @param text What `--http` was given.
 * @returns The address and port.
 * @throws {TypeError} When it is not `[HOST:]PORT` with a port from 0 to 65535.
 */
export function parseListen(text: string): Listen {
  const match = /^(?:(\[[0-9a-fA-F:]+\]|[^:\s]+):)?(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65_535) {
    throw new TypeError(`Cannot serve over HTTP at "${text}": give [HOST:]PORT, e.g. 8765`);
  }
  const host = match[1] ?? "127.0.0.1";
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}

/**
 * Resolve the HTTP settings from the command line and the `http` section.
 *
 * @param flags The command line's options.
 * @param section The config file's `http` section.
 * @returns The settings.
 * @throws {TypeError} On a remote address without `--allow-remote`, or fixtures off loopback.
 */
export function httpSettings(flags: HttpFlags, section: HttpSection = {}): HttpSettings {
  const listen = flags.http === undefined ? null : parseListen(flags.http);
  const fixtures = flags.conformanceFixtures ?? false;
  if (fixtures && listen === null) {
    throw new TypeError("--conformance-fixtures serves over HTTP only: give --http PORT too");
  }
  if (listen && !isLoopback(listen.hostname)) {
    if (fixtures) {
      throw new TypeError(
        `--conformance-fixtures serves on loopback only, not "${listen.hostname}"`,
      );
    }
    if (!flags.allowRemote) {
      throw new TypeError(
        `Cannot serve on "${listen.hostname}": it is not loopback; pass --allow-remote to bind it`,
      );
    }
  }
  return {
    listen,
    allowRemote: flags.allowRemote ?? false,
    conformanceFixtures: fixtures,
    idleTimeoutMs: (section.idleTimeoutS ?? HTTP_DEFAULTS.idleTimeoutS) * 1000,
    drainMs: (section.drainS ?? HTTP_DEFAULTS.drainS) * 1000,
    maxSessions: section.maxSessions ?? HTTP_DEFAULTS.maxSessions,
  };
}
