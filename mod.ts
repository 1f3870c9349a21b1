/**
 * toolhost: a sandboxed MCP tool host. An agent connects over MCP and gets
 * fast, code-aware tools over the project's roots, and nothing outside them.
 *
 * Run as a program, this module is the `toolhost` command line:
 *
 * ```sh
 * deno run -A mod.ts start --root /srv/project
 * ```
 *
 * As a library it exports the host, its configuration and the tool contract:
 *
 * @example
 * ```ts
 * import { createHost } from "./mod.ts";
 * await using host = await createHost({ roots: ["/srv/project"] });
 * const result = await host.call("read_file", { path: "README.md" });
 * ```
 *
 * @module
 */

export { createHost, type Host, type HostOptions } from "./host/host.ts";
export { type HostLogger, stderrLogger } from "./host/logger.ts";
export {
  type DecisionOptions,
  HookClient,
  type HookClientOptions,
  HookError,
  type HooksOptions,
  type HooksServing,
  serveHooks,
} from "./host/hooks/mod.ts";
export {
  type AnswerOutcome,
  type ApprovalAnswer,
  Approvals,
  type EventPage,
  type HookEvent,
  HookEvents,
  type PendingApproval,
} from "./host/approvals/mod.ts";
export {
  APPROVAL_CLASSES,
  type ApprovalClass,
  type ApprovalRule,
  type ConfigOverrides,
  type FileTrust,
  type HookSettings,
  type HostConfig,
  type HttpFlags,
  type HttpSettings,
  type Listen,
  loadConfig,
  type LogSettings,
  type NetSettings,
  type RipgrepSetting,
  type SessionLogSettings,
  type ShellSection,
  type TelemetrySettings,
  type ToolSettings,
  type TrustOrigin,
  type TrustSettings,
  type UpstreamEntry,
  type UpstreamPolicy,
} from "./host/config/mod.ts";
export {
  Inflight,
  type MessageTransport,
  serve,
  type ServeOptions,
} from "./host/transports/mod.ts";
export {
  type CallContext,
  Dispatcher,
  type ProviderResult,
  type ToolProvider,
} from "./host/providers/mod.ts";
export {
  type Anchor,
  type AnchorListener,
  AnchorStore,
  type SessionNotes,
} from "./host/state/mod.ts";
export type { RipgrepStatus } from "./host/workers/mod.ts";
export {
  type DoctorReport,
  main,
  type Printer,
  type ProbeResult,
  runDoctor,
} from "./host/cli/mod.ts";
export type { LandlockStatus } from "./security/landlock.ts";
export { type ErrorCode } from "./security/errors.ts";
export { type Limits, type Policy, type PolicyInput, resolvePolicy } from "./security/policy.ts";
export type { ProtectedFile, ProtectedRule } from "./security/protected.ts";
export {
  type ResolvedPath,
  type ResolveOptions,
  Resolver,
  type Want,
} from "./security/resolver.ts";
export type { DirEntry, FileVersion, FsHooks, SafeFs, WriteOptions } from "./security/safe_fs.ts";
export type { PeerEntry } from "./sinks/peers.ts";
export {
  type Content,
  defineTool,
  type InputOf,
  type Logger,
  type ObjectSchema,
  type SchemaCheck,
  type SchemaIssue,
  structured,
  text,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  ToolError,
  type ToolResult,
  type ToolSpec,
} from "./tools/tool.ts";
export type {
  ApprovalNote,
  CallObserver,
  CallOutcome,
  CallPhase,
  CallRecord,
  CallResult,
  Sink,
  TraceContext,
} from "./tools/calls.ts";
export type {
  ContextAnchor,
  Directive,
  StopProcessing,
  TierChange,
  TodoStateChanged,
} from "./tools/directives.ts";
export type { HostStatus, LaunchStatus, SinkStatus } from "./tools/observe/host_status.ts";
export type { HostPerformance } from "./tools/observe/get_host_performance.ts";
export type { ToolStats } from "./tools/observe/observation.ts";
export type { LogUsage } from "./tools/interactions.ts";
export type { EgressPolicy, HostEntry } from "./security/egress.ts";
export type { IpAddress, IpRange } from "./security/addresses.ts";
export type { HostMetrics } from "./host/telemetry/mod.ts";
export type { SandboxStatus } from "./tools/sandbox.ts";
export type { NetworkStatus } from "./tools/network.ts";
export type { HumanNote, HumanNotes } from "./tools/observe/bootstrap_body_state.ts";
export type { TodoItem, TodoStore } from "./tools/todo/todo.ts";
export { Registry, type RegistryOptions, type ToolDescriptor } from "./tools/registry.ts";
export type { ToolIcon } from "./tools/icons.ts";
export { defineFamily, type GrammarAsset, type ToolFamily } from "./tools/family.ts";
export { FAMILIES } from "./tools/families.ts";
export { TOOLS } from "./tools/mod.ts";

if (import.meta.main) {
  const { cli } = await import("./host/cli/main.ts");
  await cli(Deno.args);
}
