/**
 * Layer 3: an upstream MCP server that the host reaches as a client, offered
 * as a {@linkcode ToolProvider}. Its tools appear as `<server>__<tool>` (made
 * to fit MCP's name rule where they would not: `tools/tool_names.ts`),
 * sorted by name, with their descriptions, schemas and annotations intact;
 * calls keep their `_meta`, cancellation reaches the upstream and its
 * progress comes back; a crashed server is restarted with backoff.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { Backoff } from "../../sinks/backoff.ts";
import { clientTransport, type Launcher } from "../../sinks/mcp_transport.ts";
import type { PeerEntry } from "../../sinks/peers.ts";
import { isConnectionLoss } from "../../sinks/mcp_errors.ts";
import { type ToolDescriptor, UnknownToolError } from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { CallContext, ProviderResult, ToolProvider } from "./dispatcher.ts";
import {
  callUpstream,
  describeError,
  failureResult,
  listAllTools,
  upstreamTiming,
} from "./_upstream_calls.ts";
import { listUpstream, type UpstreamListing } from "./_upstream_list.ts";
import { serverNameProblem, UPSTREAM_SEPARATOR } from "../../tools/tool_names.ts";
import type { HostLogger } from "../logger.ts";
import type { SubprocessLog } from "../../tools/sandbox.ts";

/** How to reach an upstream server: a process over stdio, or a URL (the `.mcp.json` shape). */
export type ServerSpec = PeerEntry;

/** One configured upstream. */
export interface UpstreamOptions {
  /** The server's name: its tools are `<name>__<tool>`. */
  name: string;
  /** How to reach it. */
  spec: ServerSpec;
  /** The working directory for a stdio server without its own `cwd`. */
  cwd: string;
  /** Per-call timeout in milliseconds (default 60 s). */
  timeoutMs?: number;
  /** Only these upstream tools (their own names). */
  allow?: readonly string[];
  /** Never these upstream tools. */
  deny?: readonly string[];
  /** Where events go. */
  logger: HostLogger;
  /** Called when the upstream's tool list changed (relay it to clients). */
  onListChanged?: () => void;
  /** Where its process is recorded each time it ends (the session log). */
  subprocesses?: SubprocessLog | undefined;
  /** What starts its process instead of its own command line: the sandbox. */
  launcher?: Launcher | undefined;
  /** Why it must not start (it must run in a sandbox that is off here). */
  refused?: string | undefined;
}

/** The separator between a server's name and its tool's name. */
export const SEPARATOR: typeof UPSTREAM_SEPARATOR = UPSTREAM_SEPARATOR;
const DEFAULT_TIMEOUT_MS = 60_000;
/** How long start-up waits for an upstream before serving without it. */
const STARTUP_WAIT_MS = 10_000;
/** Restarts of a server that stopped wait 250 ms, doubling up to 30 s while it keeps failing. */
const FIRST_RESTART_MS = 250;
const MAX_RESTART_MS = 30_000;

/** Where an upstream server stands, for the start-up line, `doctor` and `get_host_performance`. */
export interface UpstreamStatus {
  /** Its name. */
  name: string;
  /** `connected`, or `down` (being retried in the background). */
  state: "connected" | "down";
  /** How many of its tools are offered. */
  tools: number;
  /** Why it is down (the last failure). */
  error?: string;
  /** The server's own name of each tool listed under a name made to fit MCP's rule, by listed name. */
  renamed?: Record<string, string>;
}

/** An upstream MCP server as a tool provider. */
export class UpstreamProvider implements ToolProvider {
  /** The server's name. */
  readonly name: string;
  #options: UpstreamOptions;
  #client: Client | undefined;
  #lastError: string | undefined;
  #connecting: Promise<Client> | undefined;
  #listing: UpstreamListing;
  #restarts = new Backoff(FIRST_RESTART_MS, MAX_RESTART_MS);
  #closed = false;
  #restart: ReturnType<typeof setTimeout> | undefined;

  private constructor(options: UpstreamOptions) {
    this.name = options.name;
    this.#options = options;
    this.#listing = this.#listed([]);
  }

  /**
   * Connect to an upstream and read its tools.
   *
   * @param options The server and its policy.
   * @returns The provider (connected, or reconnecting in the background when the first attempt failed).
   * @throws {TypeError} When the server's name cannot form valid tool names.
   */
  static async connect(options: UpstreamOptions): Promise<UpstreamProvider> {
    const problem = serverNameProblem(options.name);
    if (problem !== undefined) throw new TypeError(problem);
    const provider = new UpstreamProvider(options);
    if (options.refused !== undefined) {
      provider.#closed = true;
      provider.#lastError = options.refused;
      return provider;
    }
    const connecting = provider.#connect().then(
      () => "connected" as const,
      (error) => {
        provider.#lastError = describeError(error);
        options.logger.log(
          "warn",
          `Upstream "${options.name}" is not reachable yet; retrying in the background`,
          provider.#lastError,
        );
        provider.#scheduleRestart();
        return "failed" as const;
      },
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<"slow">((
      resolve,
    ) => (timer = setTimeout(() => resolve("slow"), STARTUP_WAIT_MS)));
    const first = await Promise.race([connecting, slow]);
    clearTimeout(timer);
    // A slow server does not hold the host up: its tools appear (with a list-changed notice) when it answers.
    if (first === "slow") {
      void connecting.then((state) => state === "connected" && options.onListChanged?.());
    }
    return provider;
  }

  /** The upstream's tools, renamed `<server>__<tool>`, filtered by allow/deny, sorted by name. */
  list(): ToolDescriptor[] {
    return [...this.#listing.descriptors];
  }

  /**
   * Call an upstream tool.
   *
   * @param name The listed name (`<server>__<tool>`, or the name made to fit).
   * @param args The raw arguments.
   * @param ctx Cancellation, progress, session.
   * @returns The upstream's result, unchanged; failures as `upstream_error` or `timeout` results.
   * @throws {UnknownToolError} When the upstream lists no such tool.
   */
  async call(name: string, args: unknown, ctx: CallContext): Promise<ProviderResult> {
    const tool = this.#listing.tools.get(name);
    if (!tool) throw new UnknownToolError(name);
    const own = tool.name;
    const retries = tool.annotations?.idempotentHint ? 1 : 0;
    const timed = upstreamTiming(this.name, own);
    for (let attempt = 0;; attempt++) {
      try {
        return timed({ result: await this.#callOnce(own, args, ctx), paths: [] });
      } catch (error) {
        const lost = isConnectionLoss(error);
        if (lost && attempt < retries && !ctx.signal?.aborted) continue;
        return timed({ result: this.#failure(name, error, ctx.signal), paths: [] });
      }
    }
  }

  /** Where it stands now. */
  status(): UpstreamStatus {
    const status: UpstreamStatus = {
      name: this.name,
      state: this.#client ? "connected" : "down",
      tools: this.list().length,
    };
    if (!this.#client) status.error = this.#lastError ?? "not connected yet";
    const renamed = this.#listing.renamed;
    if (Object.keys(renamed).length > 0) status.renamed = { ...renamed };
    return status;
  }

  /** Disconnect and stop restarting. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#restart !== undefined) clearTimeout(this.#restart);
    await this.#client?.close().catch(() => {
      // Closing a server that already stopped: nothing is left to release.
    });
  }

  async #callOnce(name: string, args: unknown, ctx: CallContext): Promise<ToolResult> {
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return await callUpstream(await this.#ready(), name, args, ctx, timeoutMs);
  }

  /** A failed call's result, naming the tool as listed. */
  #failure(listed: string, error: unknown, signal: AbortSignal | undefined): ToolResult {
    return failureResult(listed, error, {
      server: this.name,
      timeoutMs: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      cancelled: signal?.aborted === true,
    });
  }

  #allowed(name: string): boolean {
    if (this.#options.allow && !this.#options.allow.includes(name)) return false;
    return !this.#options.deny?.includes(name);
  }

  /** The connected client, reconnecting first when the server is down. */
  #ready(): Promise<Client> {
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#closed) return Promise.reject(new Error(`The upstream "${this.name}" is closed`));
    if (this.#restart !== undefined) {
      clearTimeout(this.#restart);
      this.#restart = undefined;
    }
    return this.#connect();
  }

  #connect(): Promise<Client> {
    this.#connecting ??= (async () => {
      // Every page of the tool list is followed, however many (listMaxPages: 0 is no cap).
      const client = new Client({ name: "toolhost", version: "0.1.0" }, { listMaxPages: 0 });
      client.onclose = () => this.#lost(client);
      client.setNotificationHandler("notifications/tools/list_changed", async () => {
        await this.#refresh(client);
        this.#options.onListChanged?.();
      });
      try {
        await client.connect(this.#transport());
        await this.#refresh(client);
      } catch (error) {
        delete client.onclose;
        await client.close().catch(() => {
          // It failed to connect: the error that says why is thrown below.
        });
        throw error;
      }
      const reconnected = this.#restarts.failures > 0;
      this.#client = client;
      this.#restarts.reset();
      this.#lastError = undefined;
      if (reconnected) this.#options.onListChanged?.();
      return client;
    })().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  /** A transport to the server: a new process each time, recorded when it ends. */
  #transport(): ReturnType<typeof clientTransport> {
    const { spec, cwd, subprocesses } = this.#options;
    const recorded = subprocesses
      ? { log: subprocesses, tool: `upstream:${this.name}` }
      : undefined;
    return clientTransport(spec, cwd, "pipe", recorded, this.#options.launcher);
  }

  async #refresh(client: Client): Promise<void> {
    this.#listing = this.#listed(await listAllTools(client));
  }

  #listed(tools: Parameters<typeof listUpstream>[1]): UpstreamListing {
    const allowed = (name: string) => this.#allowed(name);
    return listUpstream(this.name, tools, { allowed, logger: this.#options.logger });
  }

  #lost(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#lastError = "it stopped; restarting it";
    if (this.#closed) return;
    this.#options.logger.log("warn", `Upstream "${this.name}" stopped; restarting it`);
    this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    if (this.#closed || this.#restart !== undefined) return;
    const delay = this.#restarts.fail();
    this.#restart = setTimeout(() => {
      this.#restart = undefined;
      this.#connect().catch((error) => {
        this.#lastError = describeError(error);
        this.#options.logger.log(
          "warn",
          `Upstream "${this.name}" did not restart`,
          this.#lastError,
        );
        this.#scheduleRestart();
      });
    }, delay);
  }
}
