/**
 * How the host reports its own events: one line each to stderr, never to
 * stdout (that is the MCP channel). A person reads it (a terminal, the
 * client's log), and its text may carry what a project or an agent wrote (a
 * file name, a server's error): control characters and bidi controls are
 * shown escaped (`security/printable.ts`).
 *
 * @module
 */

import { printable } from "../security/printable.ts";

/** Where the host's parts report their own events. */
export interface HostLogger {
  /** A line for the host's stderr. */
  log(level: "info" | "warn" | "error", message: string, detail?: string | undefined): void;
}

/**
 * A logger that writes one line per event to stderr.
 *
 * @returns The logger.
 */
export function stderrLogger(): HostLogger {
  const encoder = new TextEncoder();
  return {
    log(level, message, detail) {
      const prefix = level === "info" ? "toolhost:" : `toolhost ${level}:`;
      const said = printable(message);
      const more = detail ? `\n${printable(detail, { keepNewlines: true, keepTabs: true })}` : "";
      const line = `${prefix} ${said}${more}\n`;
      Deno.stderr.writeSync(encoder.encode(line));
    },
  };
}
