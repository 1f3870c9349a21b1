/**
 * Where calls go: the dispatcher and the providers it routes to — the local
 * tools (run by the tool workers), the host-side tools, and upstream MCP
 * servers (loaded with `upstream_start.ts`, only when configured). Other
 * folders import from here.
 *
 * @module
 */

export {
  type Admission,
  type CallContext,
  type CallGate,
  type CallObserver,
  type CallOutcome,
  type CallRecord,
  type CallScope,
  Dispatcher,
  type DispatcherOptions,
  type ProviderResult,
  type ToolProvider,
} from "./dispatcher.ts";
export { type HostToolOptions, HostToolProvider } from "./host_tools.ts";
export { type HostServices, hostSideTools } from "./host_side.ts";
export { detectLanguages, localTools } from "./local.ts";
export { ShownFamilies } from "./shown_families.ts";
// Types only: the MCP client code reads the environment when it loads, so the host loads
// upstream.ts (through upstream_start.ts) only when upstream servers are configured.
export type { ServerSpec, UpstreamOptions, UpstreamProvider, UpstreamStatus } from "./upstream.ts";
