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
 *   `Basic` credentials go whatever their length when their base64 decodes
 *   to `user:password`.
 *
 * And both run on what a string decodes to:
 *
 * - JSON in a string. A string that is a JSON object or array (at most
 *   262,144 characters, and JSON in strings at most four levels deep) is
 *   parsed, and walked as arguments are when it holds what only a walk
 *   finds — a value under a secret key, an item after a flag or a secret
 *   name in an array — so that its keys count: the string
 *   `{"db":{"password":1234}}` loses its 1234. When anything in it is
 *   redacted it is written back as JSON (`JSON.stringify`, with the text's
 *   indent, line ends and surrounding space, but not other spacing:
 *   `{"a": 1}` comes back `{"a":1}`), so it stays a valid JSON string.
 *   Otherwise (nothing to walk for, nothing redacted, no parse, or over
 *   20,000 values) it is checked as text, which sees all its strings.
 * - Percent-encoding. Each run of text with a `%XX` escape (or a `+` in a
 *   URL's query) is decoded, again while escapes remain, up to four rounds
 *   (`%253D` is `=` after two), with malformed escapes kept as they are and
 *   `+` also read as a space; each decoded form is checked, and what a
 *   check replaces there is mapped back to the characters it was decoded
 *   from, so the rest stays readable:
 *   `?next=https%3A%2F%2Fa.test%2Fcb%3Fapi_key%3D[redacted]%26x%3D1`. (Where
 *   a replaced part could sit in more than one place, all of them go.)
 *
 * A string with no `%`, no `?…+` and no `{` or `[` at its start skips both.
 *
 * Nothing deeper than 64 levels, and nothing past the first 50,000 objects,
 * arrays and strings of one `apply`, is returned as it is: it is replaced
 * whole (so a cycle ends too).
 *
 * @module
 */

import { parsedJson, rewrittenJson } from "./_json_text.ts";
import { decodedForms, encodedRuns, spansInRun } from "./_percent.ts";
import { type RecentTexts, recentTextsFor } from "./_recent_texts.ts";
import { replacedSpans, type Span, withSpansRedacted } from "./_spans.ts";
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
/** Levels of JSON inside strings parsed: JSON in a string, in a string of that JSON, … */
const MAX_JSON_LEVELS = 4;
/** Objects, arrays and strings looked at in one string's JSON; past it the text is checked as text. */
const MAX_JSON_NODES = 20_000;

/** What a key says about the values under it. */
interface Verdict {
  /** The values under the key are secret. */
  secret: boolean;
  /** The key names a count or a limit. */
  quantity: boolean;
}

/** What is left to look at in one `apply` (or one string's JSON). */
interface Budget {
  /** Objects, arrays and strings. */
  left: number;
  /** Levels of JSON inside strings still parsed. */
  json: number;
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
  #recent: RecentTexts;
  #redactShapes = (text: string) => this.#shapesOf(text);

  /**
   * Make a redactor for the default secret keys and `extra`.
   *
   * @param extra Keys to redact besides the defaults: a key is redacted when
   *   its name contains one of them, ignoring case and all but letters and digits.
   */
  constructor(extra: readonly string[] = []) {
    const keys = [...DEFAULT_REDACT_KEYS, ...extra].map(flatKey).filter(Boolean);
    this.#contained = [...new Set(keys)];
    this.#recent = recentTextsFor(this.#contained);
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
    return this.#walk(value, OUTSIDE, 0, { left: MAX_NODES, json: MAX_JSON_LEVELS });
  }

  /**
   * A string with its secrets redacted: its secret-shaped parts, what its
   * percent-encoded runs hold once decoded, and, when it is JSON, the values
   * of its secret keys.
   *
   * @example
   * ```ts
   * new Redactor().text("/login?next=%2Fcb%3Fapi_key%3Dabc123%26x%3D1");
   * // "/login?next=%2Fcb%3Fapi_key%3D[redacted]%26x%3D1"
   * ```
   *
   * @param text Any text: a command, a URL, a file's content.
   * @returns The text, each secret in it replaced with `[redacted]`.
   */
  text(text: string): string {
    return this.#text(text, 0, { left: MAX_NODES, json: MAX_JSON_LEVELS });
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

  /** A string redacted: as JSON when it is JSON that holds a secret, else as text. */
  #text(text: string, depth: number, budget: Budget): string {
    if (PLAIN.test(text)) return text;
    return this.#json(text, depth, budget) ?? this.#shapes(this.#decoded(text, depth, budget));
  }

  /**
   * A string that is a JSON object or array, parsed and walked as arguments
   * are: written back as JSON when anything in it was redacted; `undefined`
   * when it is not JSON, holds nothing only a walk finds (its text holds all
   * its strings, and the checks of text see them there), holds no secret,
   * or is too big to walk whole — the checks of text then run on it.
   */
  #json(text: string, depth: number, budget: Budget): string | undefined {
    const parsed = budget.json > 0 ? parsedJson(text) : undefined;
    if (parsed === undefined) return undefined;
    const inner = (): Budget => ({ left: MAX_JSON_NODES, json: budget.json - 1 });
    const scan = inner();
    if (!this.#keyed(parsed, depth + 1, scan) || scan.left < 0) return undefined;
    const walk = inner();
    const walked = this.#walk(parsed, OUTSIDE, depth + 1, walk);
    return walked === parsed || walk.left < 0 ? undefined : rewrittenJson(text, walked);
  }

  /**
   * Whether a parsed value holds what only a walk finds: a value under a
   * secret key, an array item after a flag or a secret name, JSON in a
   * string that does, or levels deeper than a walk goes (`true` too, with
   * `budget.left` below 0, when it holds more values than a walk looks at).
   */
  #keyed(value: unknown, depth: number, budget: Budget): boolean {
    if (typeof value === "string") {
      const parsed = budget.json > 0 ? parsedJson(value) : undefined;
      if (parsed === undefined) return false;
      return this.#keyed(parsed, depth + 1, { left: MAX_JSON_NODES, json: budget.json - 1 });
    }
    if (value === null || typeof value !== "object") return false;
    if (depth >= MAX_DEPTH || --budget.left < 0) return true;
    if (Array.isArray(value)) {
      return value.some((each, i) =>
        (typeof each === "string" && this.#pairs(value[i - 1])) ||
        this.#keyed(each, depth + 1, budget)
      );
    }
    return Object.entries(value).some(([key, each]) =>
      (this.#verdict(key).secret && each !== null && typeof each !== "boolean") ||
      this.#keyed(each, depth + 1, budget)
    );
  }

  /** Whether an array item is a flag or a secret name, which the next item is scanned with. */
  #pairs(previous: unknown): previous is string {
    if (typeof previous !== "string") return false;
    return FLAG_ONLY.test(previous) || (NAME_ONLY.test(previous) && this.#verdict(previous).secret);
  }

  /**
   * Text whose percent-encoded runs hold a secret in a decoded form, with
   * the run's characters that the secret was decoded from replaced.
   */
  #decoded(text: string, depth: number, budget: Budget): string {
    const runs = encodedRuns(text);
    if (runs.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of runs) {
      const run = text.slice(start, end);
      const spans = this.#decodedSpans(run, depth, budget);
      if (spans.length === 0) continue;
      out += text.slice(at, start) + withSpansRedacted(run, spans);
      at = end;
    }
    return at === 0 ? text : out + text.slice(at);
  }

  /** The spans of a run that a check redacts in one of its decoded forms. */
  #decodedSpans(run: string, depth: number, budget: Budget): Span[] {
    return decodedForms(run).flatMap((form) => {
      const checked = this.#json(form.text, depth, budget) ?? this.#shapes(form.text);
      return spansInRun(form, replacedSpans(form.text, checked));
    });
  }

  /**
   * Text with its secret-shaped parts redacted, as it is written; a long text redacted lately
   * (by any redactor of the same keys) is not redacted again.
   */
  #shapes(text: string): string {
    return this.#recent.formOf(text, this.#redactShapes);
  }

  #shapesOf(text: string): string {
    if (PLAIN.test(text)) return text;
    let out = text.replace(TOKENS, (match) => tokenLike(match) ? REDACTED : match);
    for (const [hint, pattern, replace] of SHAPES) {
      if (out.includes(hint)) out = out.replace(pattern, replace);
    }
    out = out.replace(ASSIGNMENT, (match, ...groups) => this.#assignment(match, groups));
    out = out.replace(FLAG, (match, ...groups) => this.#flag(match, groups));
    return out.replace(RANDOM_RUN, redactRandom);
  }

  #walk(value: unknown, under: Verdict, depth: number, budget: Budget): unknown {
    if (typeof value === "string") {
      if (--budget.left < 0) return REDACTED;
      if (!under.secret) return this.#text(value, depth, budget);
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
          this.#paired(value[i - 1], each, depth, budget);
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
      const name = this.#text(key, depth, budget);
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
   * `name: item`; `false` when the item follows neither, or nothing in it
   * was redacted so (it is then walked on its own).
   */
  #paired(previous: unknown, item: string, depth: number, budget: Budget): string | false {
    if (!this.#pairs(previous)) return false;
    const head = FLAG_ONLY.test(previous) ? `${previous} ` : `${previous}: `;
    const joined = this.#text(head + item, depth, budget);
    if (joined === head + item) return false;
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
