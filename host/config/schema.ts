/**
 * The shape of `toolhost.json`, and the types it gives: the file as written
 * ({@linkcode HostConfigInput}) and as parsed ({@linkcode ConfigFile}).
 *
 * @module
 */

import { z } from "zod";
import { MCP_SERVER, serverNames } from "./_upstream_schema.ts";

export type { UpstreamEntry, UpstreamPolicy } from "./_upstream_schema.ts";

const LIMITS = z.object({
  maxReadBytes: z.number().int().positive().optional(),
  maxOutputChars: z.number().int().min(4096).max(4 * 1024 * 1024).optional().describe(
    "The largest reply, in bytes of its JSON (text, structured content, _meta together; default 200000)",
  ),
  maxRequestBytes: z.number().int().min(64 * 1024).max(256 * 1024 * 1024).optional().describe(
    "The largest request line the host reads, in bytes (default 4 MiB); larger ones get a JSON-RPC error",
  ),
  maxSearchFileBytes: z.number().int().positive().optional(),
  maxEditBytes: z.number().int().positive().optional(),
}).strict();

const LOG = z.object({
  enabled: z.boolean().optional().describe("Write the interaction log (default true)"),
  retentionDays: z.number().int().min(1).max(3650).optional().describe(
    "Delete day files older than this (default 30)",
  ),
  maxArgBytes: z.number().int().min(64).optional().describe(
    "Cap on logged arguments (default 4096)",
  ),
  redactKeys: z.array(z.string()).optional().describe(
    "More argument keys whose values are redacted, at any depth, besides the defaults (password, pwd, secret, token, auth, api_key, credentials, cookie, ...): a key whose name contains one, ignoring case and separators, is redacted. Secret-shaped values (tokens, keys, URL passwords) are redacted under any key",
  ),
  maxDayBytes: z.number().int().min(64 * 1024).optional().describe(
    "The most one UTC day's log files may hold (default 64 MiB, at most maxTotalBytes); past 3/4 of it the oldest read-only calls are dropped first, calls of tools that write last, and each drop is recorded",
  ),
  maxTotalBytes: z.number().int().min(64 * 1024).optional().describe(
    "The most the whole interaction log may hold (default 512 MiB), dropped from the same way",
  ),
  sessions: z.object({
    enabled: z.boolean().optional().describe(
      "Keep session logs in .toolhost/sessions/ (default: as log.enabled)",
    ),
    retentionDays: z.number().int().min(1).max(3650).optional().describe(
      "Delete sessions idle for longer than this (default 7)",
    ),
    maxTotalBytes: z.number().int().min(1024 * 1024).optional().describe(
      "The most all sessions may hold (default 256 MiB): the oldest whole sessions go first",
    ),
    maxSessionBytes: z.number().int().min(64 * 1024).optional().describe(
      "Past this (default 32 MiB) a session stops logging MCP messages; process records go on",
    ),
    maxMessageBytes: z.number().int().min(1024).max(4 * 1024 * 1024).optional().describe(
      "Each logged MCP message is cut to this (default 16 KiB)",
    ),
  }).strict().optional(),
}).strict();

/** The `shell` section: the sandbox that runs shell commands, git and bd. */
const SHELL = z.object({
  enabled: z.boolean().optional().describe("List run_shell (default true where bwrap works)"),
  bwrap: z.string().optional().describe(`"auto" (default: bwrap on the PATH), "off", or its path`),
  timeoutS: z.number().int().min(1).max(86_400).optional().describe(
    "A command's default time limit, in seconds (default 60)",
  ),
  maxTimeoutS: z.number().int().min(1).max(86_400).optional().describe(
    "The longest time limit a call may ask for, in seconds (default 600)",
  ),
  network: z.boolean().optional().describe(
    "Share the host's network with commands (default false: they have none). A loosening",
  ),
  unconfined: z.boolean().optional().describe(
    "Run commands WITHOUT the sandbox where bwrap is missing (default false; warned at every start)",
  ),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional().describe(
    "Variables set inside; ${VAR} takes VAR from the host's environment",
  ),
  path: z.object({
    prepend: z.array(z.string().min(1)).optional().describe("Directories put before PATH"),
  }).strict().optional(),
  hide: z.array(z.string().min(1)).optional().describe(
    "More paths never shown to commands (absolute or ~/…), besides ~/.ssh, ~/.aws and the like",
  ),
  limits: z.object({
    memoryMb: z.number().int().min(64).optional().describe("Address space (default 8192)"),
    fileMb: z.number().int().min(1).optional().describe("Largest file written (default 1024)"),
    processes: z.number().int().min(8).max(100_000).optional().describe(
      "Most processes at once (default 512)",
    ),
    openFiles: z.number().int().min(64).optional().describe("Open files (default 4096)"),
  }).strict().optional(),
}).strict();

/** The `http` section: how `--http` serves (where it listens is the command line's). */
const HTTP = z.object({
  idleTimeoutS: z.number().int().min(1).max(7 * 86_400).optional().describe(
    "An HTTP session idle this long is closed, in seconds (default 1800)",
  ),
  drainS: z.number().int().min(0).max(600).optional().describe(
    "On SIGTERM, calls in flight get this long to finish, in seconds (default 10)",
  ),
  maxSessions: z.number().int().min(1).max(100_000).optional().describe(
    "Most HTTP sessions open at once (default 256)",
  ),
}).strict();

/** The `hooks` section: the Hook API and the dashboard (off unless the section is there). */
const HOOKS = z.object({
  enabled: z.boolean().optional().describe(
    "Serve the Hook API and dashboard (default: true when the section is there)",
  ),
  port: z.number().int().min(0).max(65_535).optional().describe(
    "The loopback port (default 8999; 0: the system picks one, said at start)",
  ),
  askTimeoutS: z.number().int().min(1).max(3600).optional().describe(
    "How long POST /api/ask waits for a response before 504, in seconds (default 60)",
  ),
}).strict();

/** The `telemetry` section: OpenTelemetry export over OTLP/HTTP (off unless an endpoint is named). */
const TELEMETRY = z.object({
  otlp: z.object({
    endpoint: z.string().min(1).describe(
      "The collector's OTLP/HTTP address (http://127.0.0.1:4318): spans go to /v1/traces, metrics to /v1/metrics",
    ),
  }).strict().optional(),
}).strict();

/** The `net` section: `fetch_url` and `web_search`, and what they may reach (`security/egress.ts`). */
const NET = z.union([
  z.literal(false).describe("No fetch_url and web_search"),
  z.object({
    enabled: z.boolean().optional().describe("List fetch_url and web_search (default true)"),
    allow: z.array(z.string().min(1)).optional().describe(
      "Only these hosts (names with * and ?, addresses, ranges; :port optional). An address or range also makes those non-public addresses reachable, from a config file outside the roots only",
    ),
    deny: z.array(z.string().min(1)).optional().describe(
      "Never these hosts (names with * and ?, addresses, ranges; :port optional)",
    ),
    nameServer: z.string().optional().describe(
      "The DNS server, address[:port] (default: those in /etc/resolv.conf); from a config file outside the roots only",
    ),
    timeoutS: z.number().int().min(1).max(600).optional().describe(
      "A fetch's time limit, redirects included, in seconds (default 30)",
    ),
    maxBytes: z.number().int().min(1024).max(100 * 1024 ** 2).optional().describe(
      "The most bytes downloaded for one page (default 10 MiB)",
    ),
    maxRedirects: z.number().int().min(0).max(20).optional().describe(
      "Redirects followed (default 5)",
    ),
    searchUrl: z.string().regex(/^https?:\/\/[^\s]+$/i, "an http or https URL").optional().describe(
      "web_search's endpoint: DuckDuckGo's HTML results page or one like it (default https://html.duckduckgo.com/html/); from a config file outside the roots only",
    ),
    userAgent: z.string().regex(/^[\x20-\x7e]{1,256}$/, "printable ASCII, at most 256 characters")
      .optional().describe("The User-Agent sent; from a config file outside the roots only"),
  }).strict(),
]);

/** The classes of tools an approval rule can name. */
export const APPROVAL_CLASSES = ["write", "exec", "net", "upstream"] as const;

/** One approval rule: the calls it holds until a human answers. */
const APPROVAL_RULE = z.object({
  tools: z.array(z.string().min(1)).optional().describe(
    "Tool names or globs (* and ?) whose calls wait for a human",
  ),
  classes: z.array(z.enum(APPROVAL_CLASSES)).optional().describe(
    "Classes of tools whose calls wait: write (not read-only), exec (runs programs), net (reaches the network), upstream (an upstream server's)",
  ),
  scope: z.enum(["call", "session"]).optional().describe(
    `"call" (default): each approval is for one call with its exact arguments; "session": the human may also approve the tool for the rest of the session`,
  ),
  timeoutS: z.number().int().min(1).max(86_400).optional().describe(
    "Unanswered this long, the call fails with approval_timeout (default 120)",
  ),
  elicitation: z.boolean().optional().describe(
    "Also ask the MCP client's user through elicitation (default true); false: only the dashboard and the Hook API answer (a client that answers for its user could be the agent's own harness)",
  ),
}).strict().refine((rule) => (rule.tools?.length ?? 0) + (rule.classes?.length ?? 0) > 0, {
  message: "an approval rule names tools or classes",
});

/** The shape of `toolhost.json`. */
export const CONFIG_SCHEMA = z.object({
  roots: z.array(z.string().min(1)).optional().describe(
    "Project directories, relative to this file",
  ),
  stateDir: z.string().optional(),
  blacklist: z.array(z.string()).optional(),
  protect: z.array(z.string().min(1)).optional().describe(
    "More globs that no tool may write (besides the fixed protected paths)",
  ),
  unprotect: z.array(z.string().min(1)).optional().describe(
    "Protected paths to lift, exactly as listed; honoured only in a config file outside every root",
  ),
  unhide: z.array(z.string().min(1)).optional().describe(
    "Secret names to show to the tools and the shell after all, exactly as listed (.ssh/**, .netrc, …); honoured only in a config file outside every root",
  ),
  allowHardlinks: z.boolean().optional(),
  limits: LIMITS.optional(),
  tools: z.object({
    enabled: z.array(z.string()).optional().describe(
      "Only these tools, host-side ones included (an upstream server's are chosen in its entry)",
    ),
    disabled: z.array(z.string()).optional().describe("Never these tools"),
    families: z.record(z.string(), z.boolean()).optional().describe(
      "Families by name: true lists them whatever the roots hold, false switches them off",
    ),
    outputSchemas: z.boolean().optional().describe(
      "List each tool's output schema too (default false; costs about 5,000 tokens)",
    ),
  }).strict().optional(),
  workers: z.number().int().min(1).max(16).optional(),
  callTimeoutMs: z.number().int().positive().optional(),
  ripgrep: z.string().optional().describe(`"auto" (default), "off", or the path of rg`),
  landlock: z.boolean().optional().describe(
    "Confine tool workers with Linux Landlock (default true)",
  ),
  upstream: z.object({ mcpServers: z.record(z.string(), MCP_SERVER).check(serverNames) })
    .optional(),
  sinks: z.object({
    mcpJson: z.string().optional(),
    observeTimeoutMs: z.number().int().min(1).max(60_000).optional().describe(
      "How long each sink's observe call may take, in ms (default 250)",
    ),
  }).strict().optional(),
  log: LOG.optional(),
  shell: SHELL.optional(),
  http: HTTP.optional(),
  hooks: HOOKS.optional(),
  telemetry: TELEMETRY.optional(),
  net: NET.optional(),
  approvals: z.array(APPROVAL_RULE).optional().describe(
    "Calls that wait for a human's approval (through the Hook API, the dashboard or MCP elicitation)",
  ),
}).strict();

/** `toolhost.json` as written. */
export type HostConfigInput = z.input<typeof CONFIG_SCHEMA>;

/** `toolhost.json` as parsed: every key optional, each value checked. */
export type ConfigFile = z.output<typeof CONFIG_SCHEMA>;

/** The `log` section as parsed. */
export type LogSection = z.output<typeof LOG>;

/** The `log.sessions` section as parsed. */
export type SessionLogSection = NonNullable<LogSection["sessions"]>;

/** The `telemetry` section as parsed. */
export type TelemetrySection = z.output<typeof TELEMETRY>;

/**
 * The `shell` section as parsed: the schema's output type (each key is described in the schema
 * above and in docs/configuration.md).
 *
 * @internal Named by zod's type of a private schema; read it through `HostConfig.shell`.
 */
export type ShellSection = z.output<typeof SHELL>;

/** The `http` section as parsed. */
export type HttpSection = z.output<typeof HTTP>;

/** The `hooks` section as parsed. */
export type HooksSection = z.output<typeof HOOKS>;

/** The `net` section as parsed. */
export type NetSection = z.output<typeof NET>;

/** One approval rule as parsed. */
export type ApprovalRuleInput = z.output<typeof APPROVAL_RULE>;
