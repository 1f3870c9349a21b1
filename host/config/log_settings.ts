/**
 * The interaction log's settings: the `log` section of `toolhost.json`,
 * defaulted.
 *
 * @module
 */

import type { LogSection, SessionLogSection } from "./schema.ts";

/** The interaction log's settings, resolved. */
export interface LogSettings {
  /** Write the log. */
  enabled: boolean;
  /** Day files older than this many days are deleted. */
  retentionDays: number;
  /** Logged arguments are cut to this many bytes of JSON. */
  maxArgBytes: number;
  /** The most one UTC day's files may hold (at most {@linkcode LogSettings.maxTotalBytes}). */
  maxDayBytes: number;
  /** The most all the log's files may hold. */
  maxTotalBytes: number;
  /** More argument keys to redact. */
  redactKeys?: string[];
  /** The session logs (`<stateDir>/sessions/`). */
  sessions: Readonly<SessionLogSettings>;
}

/** The session logs' settings, resolved: the `log.sessions` section, defaulted. */
export interface SessionLogSettings {
  /** Keep session logs. */
  enabled: boolean;
  /** Sessions idle for longer than this many days are deleted. */
  retentionDays: number;
  /** The most all sessions may hold: past it the oldest whole sessions are deleted. */
  maxTotalBytes: number;
  /** Past this a session stops logging MCP messages (its process records go on). */
  maxSessionBytes: number;
  /** Each logged MCP message is cut to this many bytes of JSON. */
  maxMessageBytes: number;
}

/** The session logs' defaults: a week, 256 MiB in all, 32 MiB a session, 16 KiB a message. */
const SESSION_DEFAULTS = {
  retentionDays: 7,
  maxTotalBytes: 256 * 1024 * 1024,
  maxSessionBytes: 32 * 1024 * 1024,
  maxMessageBytes: 16 * 1024,
};

/**
 * The log's caps by default. A day's 64 MiB hold some 15,000 calls at the
 * 4 KiB argument cap, or some 200,000 ordinary ones — more than a busy agent
 * makes — and a whole day is read in well under a second; 512 MiB keep eight
 * such days (30 of ordinary use) and bound what read_interactions may scan.
 */
const LOG_CAPS = { maxDayBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

/**
 * Default the `log` section; a day's cap is at most the total one.
 *
 * @param section The section as parsed, if the file has one.
 * @returns The settings, frozen.
 */
export function logSettings(section: LogSection | undefined): Readonly<LogSettings> {
  const maxTotalBytes = section?.maxTotalBytes ?? LOG_CAPS.maxTotalBytes;
  const settings: LogSettings = {
    enabled: section?.enabled ?? true,
    retentionDays: section?.retentionDays ?? 30,
    maxArgBytes: section?.maxArgBytes ?? 4096,
    maxDayBytes: Math.min(section?.maxDayBytes ?? LOG_CAPS.maxDayBytes, maxTotalBytes),
    maxTotalBytes,
    sessions: sessionSettings(section?.sessions, section?.enabled ?? true),
  };
  if (section?.redactKeys) settings.redactKeys = section.redactKeys;
  return Object.freeze(settings);
}

/**
 * Default the `log.sessions` section; a session's cap is at most the total one.
 *
 * @param section The section as parsed, if the file has one.
 * @param logEnabled Whether the interaction log is on (the sessions' default).
 * @returns The settings, frozen.
 */
export function sessionSettings(
  section: SessionLogSection | undefined,
  logEnabled: boolean,
): Readonly<SessionLogSettings> {
  const maxTotalBytes = section?.maxTotalBytes ?? SESSION_DEFAULTS.maxTotalBytes;
  return Object.freeze({
    enabled: section?.enabled ?? logEnabled,
    retentionDays: section?.retentionDays ?? SESSION_DEFAULTS.retentionDays,
    maxTotalBytes,
    maxSessionBytes: Math.min(
      section?.maxSessionBytes ?? SESSION_DEFAULTS.maxSessionBytes,
      maxTotalBytes,
    ),
    maxMessageBytes: section?.maxMessageBytes ?? SESSION_DEFAULTS.maxMessageBytes,
  });
}
