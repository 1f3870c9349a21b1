/**
 * Secrets in tool arguments, hidden before arguments leave the call: in the
 * interaction log and in the copies sent to observer peers.
 *
 * Two checks run at every depth of the arguments:
 *
 * - By key. A value is redacted when its key names a secret: the name,
 *   ignoring case and everything but letters and digits, contains one of
 *   {@linkcode DEFAULT_REDACT_KEYS} or of the configured keys
 *   (`log.redactKeys`), or one of its words (split at camelCase, digits, `_`,
 *   `-`, `.`) is one of {@linkcode DEFAULT_REDACT_WORDS} — so `auth_token`
 *   and `pwd` are secret, `author`, `tokenizer` and `session` are not.
 *   Everything under such a key is redacted, strings and numbers; booleans
 *   and `null` are kept (they carry no secret). Numbers, and strings of
 *   digits, are kept when the key also names a count or a limit
 *   (`max_tokens`, `token_count`). A key whose last word says it describes a
 *   secret rather than holds it (`password_file`, `token_url`, `auth_type`,
 *   `secret_name`) is not secret; its value is still checked by shape.
 * - By shape. Every string (and every key) is scanned for secrets wherever
 *   they sit — under innocent keys, in arrays, inside a shell command, a URL
 *   or a file's text — and only the secret part is replaced, so the record
 *   stays readable: `postgres://app:[redacted]@db/prod`,
 *   `curl -H 'Authorization: Bearer [redacted]'`, `?password=[redacted]&x=1`.
 *   The shapes are `TOKENS` and `SHAPES` in `_secret_shapes.ts`, each
 *   with what it matches; then `name=value` assignments and `--name value`
 *   flags with a secret name; then a test for long random-looking strings
 *   (`randomLike`, there too). Hex (git SHAs, file digests), UUIDs, paths,
 *   identifiers and prose do not look random by it, and subresource-
 *   integrity hashes (`sha512-…`) are kept. In text, a value after a secret
 *   name is kept when it reads as code (`password: string`,
 *   `token = await fetchToken()`, `key=cfg.apiKey`). A secret with no shape
 *   of its own (a 32-hex API key, a word as a password) is found only by key.
 *
 * Nothing deeper than 64 levels, and nothing past the first 50,000 objects,
 * arrays and strings of one `apply`, is returned as it is: it is replaced
 * whole (so a cycle ends too).
 *
 * @module
 */

import {
  ASSIGNMENT,
  CODE_WORDS,
  codeLike,
  DEFAULT_REDACT_KEYS,
  DESCRIBING_WORDS,
  DIGITS,
  FLAG,
  FLAG_ONLY,
  flatKey,
  keyWords,
  NAME_ONLY,
  PLAIN,
  QUANTITY_WORDS,
  RANDOM_RUN,
  REDACTED,
  redactRandom,
  SECRET_WORDS,
  SHAPES,
  TEMPLATE,
  tokenLike,
  TOKENS,
} from "./_secret_shapes.ts";

export { DEFAULT_REDACT_KEYS, DEFAULT_REDACT_WORDS, REDACTED } from "./_secret_shapes.ts";

/** Beyond this depth a subtree is replaced whole. */
const MAX_DEPTH = 64;
/** Objects, arrays and strings looked at in one `apply`; past it the rest is replaced. */
const MAX_NODES = 50_000;
/** Key names whose verdicts one redactor remembers. */
const MAX_CACHED_KEYS = 4096;

/** What a key says about the values under it. */
interface Verdict {
  /** The values under the key are secret. */
  secret: boolean;
  /** The key names a count or a limit. */
  quantity: boolean;
}

/** Objects, arrays and strings left to look at in one `apply`. */
interface Budget {
  left: number;
}

/** Where the arguments themselves sit: under no key. */
const OUTSIDE: Verdict = Object.freeze({ secret: false, quantity: false });

/**
 * Replaces secrets in arguments with `[redacted]`: the values of secret keys,
 * and secret-shaped text wherever it is, at every depth.
 *
 * @example
 * ```ts
 * const redactor = new Redactor(["pin"]);
 * redactor.apply({ pwd: "hunter2", url: "postgres://app:s3cret@db/prod", card_pin: 1234 });
 * // { pwd: "[redacted]", url: "postgres://app:[redacted]@db/prod", card_pin: "[redacted]" }
 * ```
 */
export class Redactor {
  #contained: readonly string[];
  #verdicts = new Map<string, Verdict>();

  /**
   * @param extra Keys to redact besides the defaults: a key is redacted when
   *   its name contains one of them, ignoring case and all but letters and digits.
   */
  constructor(extra: readonly string[] = []) {
    const keys = [...DEFAULT_REDACT_KEYS, ...extra].map(flatKey).filter(Boolean);
    this.#contained = [...new Set(keys)];
  }

  /**
   * A value with its secrets redacted: a copy where anything was redacted,
   * the value itself where nothing was (never changed either way: treat what
   * comes back as read-only).
   *
   * @param value Arguments (any JSON value).
   * @returns The redacted copy, or `value` when it holds no secret.
   */
  apply(value: unknown): unknown {
    return this.#walk(value, OUTSIDE, 0, { left: MAX_NODES });
  }

  /**
   * A string with its secret-shaped parts redacted.
   *
   * @param text Any text: a command, a URL, a file's content.
   * @returns The text, each secret in it replaced with `[redacted]`.
   */
  text(text: string): string {
    if (PLAIN.test(text)) return text;
    let out = text.replace(TOKENS, (match) => tokenLike(match) ? REDACTED : match);
    for (const [hint, pattern, replace] of SHAPES) {
      if (out.includes(hint)) out = out.replace(pattern, replace);
    }
    out = out.replace(ASSIGNMENT, (match, ...groups) => this.#assignment(match, groups));
    out = out.replace(FLAG, (match, ...groups) => this.#flag(match, groups));
    return out.replace(RANDOM_RUN, redactRandom);
  }

  /**
   * Whether a key names a secret.
   *
   * @param key A key, or a name in text (`db_password`, `X-Api-Key`).
   * @returns `true` when the values under it are redacted.
   */
  isSecretKey(key: string): boolean {
    return this.#verdict(key).secret;
  }

  #walk(value: unknown, under: Verdict, depth: number, budget: Budget): unknown {
    if (typeof value === "string") {
      if (--budget.left < 0) return REDACTED;
      if (!under.secret) return this.text(value);
      return under.quantity && DIGITS.test(value) ? value : REDACTED;
    }
    if (typeof value === "number") return under.secret && !under.quantity ? REDACTED : value;
    if (value === null || typeof value !== "object") return value;
    if (depth >= MAX_DEPTH || --budget.left < 0) return REDACTED;
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      return this.#walk((value as { toJSON(): unknown }).toJSON(), under, depth + 1, budget);
    }
    // Copied only from the first item or key that changes: most arguments and messages hold no
    // secret, and then the value itself comes back, with nothing allocated for it.
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const each: unknown = value[i];
        const paired = typeof each === "string" && !under.secret &&
          this.#paired(value[i - 1], each);
        const walked = paired === false ? this.#walk(each, under, depth + 1, budget) : paired;
        if (out === undefined && walked !== each) out = value.slice(0, i);
        out?.push(walked);
      }
      return out ?? value;
    }
    const entries = Object.entries(value);
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < entries.length; i++) {
      const [key, each] = entries[i]!;
      const own = this.#verdict(key);
      const verdict = under.secret ? { secret: true, quantity: own.quantity } : own;
      const name = this.text(key);
      const walked = this.#walk(each, verdict, depth + 1, budget);
      if (out === undefined && (name !== key || walked !== each)) {
        out = {};
        for (const [before, kept] of entries.slice(0, i)) put(out, before, kept);
      }
      if (out !== undefined) put(out, name, walked);
    }
    return out ?? value;
  }

  #verdict(key: string): Verdict {
    let verdict = this.#verdicts.get(key);
    if (verdict) return verdict;
    const flat = flatKey(key);
    const parts = keyWords(key);
    const named = this.#contained.some((each) => flat.includes(each)) ||
      parts.some((part) => SECRET_WORDS.has(part));
    const describing = DESCRIBING_WORDS.has(parts.at(-1) ?? "");
    const quantity = parts.some((part) => QUANTITY_WORDS.has(part));
    verdict = Object.freeze({ secret: named && !describing, quantity });
    if (this.#verdicts.size < MAX_CACHED_KEYS) this.#verdicts.set(key, verdict);
    return verdict;
  }

  /** A `name=value` in text: the value redacted when the name is secret and the value not code. */
  #assignment(match: string, groups: unknown[]): string {
    const [, path, , before, sep, after, quote, quoted, bare] = groups as (string | undefined)[];
    const name = path!.slice(path!.lastIndexOf(".") + 1);
    const verdict = this.#verdict(name);
    const value = quote === undefined ? bare! : quoted!;
    if (!verdict.secret || !/[A-Za-z0-9]/.test(value) || value.includes(REDACTED)) return match;
    if (verdict.quantity && DIGITS.test(value)) return match;
    if (TEMPLATE.test(value) || CODE_WORDS.has(value.trim().toLowerCase())) return match;
    const flat = flatKey(value);
    if (flat === flatKey(name) || keyWords(name).includes(flat)) return match;
    const compact = sep === "=" && before === "" && after === "";
    if (quote === undefined && codeLike(value, name, compact)) return match;
    const end = match.length - (quote?.length ?? 0);
    return match.slice(0, end - value.length) + REDACTED + match.slice(end);
  }

  /**
   * An array item after a flag (`["psql", "--password", "…"]`) or a secret
   * name (`[["X-Api-Key", "…"]]`), scanned with it as `--flag item` or
   * `name: item`; `false` when the item follows neither.
   */
  #paired(previous: unknown, item: string): string | false {
    if (typeof previous !== "string") return false;
    let head: string;
    if (FLAG_ONLY.test(previous)) head = `${previous} `;
    else if (NAME_ONLY.test(previous) && this.#verdict(previous).secret) head = `${previous}: `;
    else return false;
    const joined = this.text(head + item);
    return joined.startsWith(head) ? joined.slice(head.length) : REDACTED;
  }

  /** A `--flag value` in a command line: the value (or a `-u user:password`'s password) redacted. */
  #flag(match: string, groups: unknown[]): string {
    const [flag, space, quote = "", quoted, bare] = groups as (string | undefined)[];
    const value = quoted ?? bare!;
    const head = `${flag}${space}${quote}`;
    if (flag === "-u" || flag === "--user") {
      const colon = value.indexOf(":");
      if (colon < 0 || colon === value.length - 1) return match;
      return `${head}${value.slice(0, colon + 1)}${REDACTED}${quote}`;
    }
    if (!this.#verdict(flag!).secret || value.includes(REDACTED)) return match;
    return codeLike(value, flag!, quote !== "") ? match : `${head}${REDACTED}${quote}`;
  }
}

/** Sets a property, `__proto__` included, as an own property. */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    out[key] = value;
  }
}
