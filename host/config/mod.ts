/**
 * Configuration: `toolhost.json` and the command line, resolved once into a
 * frozen {@linkcode HostConfig}; and where efferent copy is switched on.
 *
 * @example
 * ```ts
 * import { loadConfig } from "./mod.ts";
 * const config = await loadConfig({ roots: ["/srv/project"] });
 * config.policy.roots; // ["/srv/project"]
 * ```
 *
 * @module
 */

export {
  CONFIG_FILE,
  CONFIG_SCHEMA,
  type ConfigOverrides,
  type FileTrust,
  type HostConfig,
  type HostConfigInput,
  type KnownTools,
  loadConfig,
  type LogSettings,
  RIPGREP_NOT_FOUND,
  type RipgrepSetting,
  type SessionLogSettings,
  type ShellSection,
  type ToolSettings,
  type TrustOrigin,
  type TrustSettings,
  unknownToolNames,
  type UpstreamEntry,
  type UpstreamPolicy,
} from "./config.ts";
export { HOST_DEFAULTS, SHELL_DEFAULTS } from "./defaults.ts";
export { sandboxed, sandboxNetwork } from "./servers.ts";
export { type ProjectView, projectView } from "./project_config.ts";
export {
  readTrust,
  sha256Hex,
  type TrustRecord,
  trustStorePath,
  USER_DIRS_ENV,
  writeTrust,
} from "./trust.ts";
export { readUserList, writeUserList } from "./user_list.ts";
export { EFFERENT_ENV, efferentCopyEnabled, selfEntries, selfEntry } from "./efferent_env.ts";
export {
  bracketed,
  hostPort,
  type HttpFlags,
  type HttpSettings,
  isLoopback,
  isWildcard,
  type Listen,
  parseListen,
} from "./http_settings.ts";
export { APPROVAL_CLASSES } from "./schema.ts";
export {
  type ApprovalClass,
  type ApprovalRule,
  approvalRules,
  DEFAULT_APPROVAL_TIMEOUT_S,
  DEFAULT_HOOKS_PORT,
  type HookSettings,
} from "./hook_settings.ts";
export { DEFAULT_SEARCH_URL, HOSTS_FILE, type NetSettings, RESOLV_CONF } from "./net_settings.ts";
export {
  TELEMETRY_ENV,
  telemetryNet,
  type TelemetrySettings,
  telemetrySettings,
} from "./telemetry_settings.ts";
