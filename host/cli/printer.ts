/**
 * Where the command line prints: the one place allowed to write to the
 * terminal.
 *
 * @module
 */

/** Where the CLI prints: the one place allowed to write to the terminal. */
export interface Printer {
  /** A line to stdout. */
  out(line: string): void;
  /** A line to stderr. */
  err(line: string): void;
}

/** A stdout/stderr printer. */
export function terminalPrinter(): Printer {
  const encoder = new TextEncoder();
  return {
    out: (line) => void Deno.stdout.writeSync(encoder.encode(`${line}\n`)),
    err: (line) => void Deno.stderr.writeSync(encoder.encode(`${line}\n`)),
  };
}

/** How a command prints: where, and whether as JSON. */
export interface OutputOptions {
  /** Machine-readable output (`--json`). */
  json: boolean;
  /** Where to print. */
  printer: Printer;
}

/**
 * An error as one line (its name and message, whitespace runs joined), at most 500 characters.
 *
 * @param error What was thrown.
 * @returns The line.
 */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s*\n\s*/g, " ").slice(0, 500);
}
