/**
 * The error a model sees and can act on. Its text at the MCP boundary is
 * `"<code>: <message>"`; the code is stable, the message says what to do.
 *
 * @module
 */

/** Stable error codes that tools report. */
export type ErrorCode =
  | "path_denied"
  | "protected_path"
  | "invalid_path"
  | "not_found"
  | "not_a_file"
  | "not_a_directory"
  | "already_exists"
  | "too_large"
  | "binary_file"
  | "invalid_argument"
  | "no_match"
  | "ambiguous_match"
  | "syntax_error"
  | "stale_read"
  | "unsupported"
  | "cancelled"
  | "timeout"
  | "denied"
  | "upstream_error"
  | "net_denied"
  | "net_error"
  | "net_timeout"
  | "too_many_redirects"
  | "http_error"
  | "no_results"
  | "bad_response"
  | (string & Record<never, never>);

/**
 * An error a model can act on, reported as an `isError` result.
 *
 * @example
 * ```ts
 * throw new ToolError("not_found", `Cannot read "a.py": it does not exist`);
 * ```
 */
export class ToolError extends Error {
  /** The stable code that starts the result text. */
  readonly code: ErrorCode;

  /**
   * An error the model sees as `<code>: <message>`.
   *
   * @param code The stable code, e.g. `path_denied`.
   * @param message What failed and what to do, in std's style.
   * @param options The cause, kept for the log only.
   */
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
    this.code = code;
  }
}
