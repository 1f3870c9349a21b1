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
  CONFIG_SCHEMA,
  type ConfigOverrides,
  type HostConfig,
  type HostConfigInput,
  type KnownTools,
  loadConfig,
  type LogSettings,
  RIPGREP_NOT_FOUND,
  type RipgrepSetting,
  type SessionLogSettings,
  type ToolSettings,
  unknownToolNames,
  type UpstreamEntry,
  type UpstreamPolicy,
} from "./config.ts";
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
export {
  type ApprovalClass,
  type ApprovalRule,
  DEFAULT_APPROVAL_TIMEOUT_S,
  DEFAULT_HOOKS_PORT,
  type HookSettings,
} from "./hook_settings.ts";
export { DEFAULT_SEARCH_URL, HOSTS_FILE, type NetSettings, RESOLV_CONF } from "./net_settings.ts";
