/**
 * Secrets in tool arguments, hidden before arguments leave the call: in the
 * interaction log and in the copies sent to observer peers.
 *
 * @module
 */

/** Argument keys redacted by default. */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  "password",
  "passwd",
  "secret",
  "token",
  "api_key",
  "apikey",
  "authorization",
  "cookie",
  "private_key",
]);

/** How deep into nested arguments keys are looked at. */
const MAX_DEPTH = 8;

/** Replaces the values of secret-looking keys, anywhere in the arguments, with `[redacted]`. */
export class Redactor {
  #keys: readonly string[];

  /**
   * @param extra Keys to redact besides {@linkcode DEFAULT_REDACT_KEYS}: a key
   *   is redacted when its name contains one of them, ignoring case, `-` and `_`.
   */
  constructor(extra: readonly string[] = []) {
    this.#keys = [...new Set([...DEFAULT_REDACT_KEYS, ...extra].map(normalKey).filter(Boolean))];
  }

  /**
   * A copy of a value with secret keys redacted (the value itself is left alone).
   *
   * @param value Arguments (any JSON value).
   * @returns The redacted copy.
   */
  apply(value: unknown): unknown {
    return this.#redact(value, 0);
  }

  #redact(value: unknown, depth: number): unknown {
    if (depth > MAX_DEPTH || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((each) => this.#redact(each, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, each] of Object.entries(value)) {
      const name = normalKey(key);
      out[key] = this.#keys.some((secret) => name.includes(secret))
        ? "[redacted]"
        : this.#redact(each, depth + 1);
    }
    return out;
  }
}

function normalKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, "");
}
