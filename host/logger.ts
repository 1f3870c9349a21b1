/**
 * How the host reports its own events: one line each to stderr, never to
 * stdout (that is the MCP channel).
 *
 * @module
 */

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
      const line = `${prefix} ${message}${detail ? `\n${detail}` : ""}\n`;
      Deno.stderr.writeSync(encoder.encode(line));
    },
  };
}
