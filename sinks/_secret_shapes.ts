/**
 * What secrets look like, for the redactor (`redact.ts`): the key words that
 * name a secret or describe one, the tokens known by their own form, the
 * shapes known by what surrounds them, `name=value` and `--flag value` in
 * text, and the test for long random-looking strings.
 *
 * Pattern sets considered, and why this module keeps its own list:
 * secretlint's presets (`@secretlint/secretlint-rule-preset-recommend`) keep
 * their patterns inside rule functions that report ranges through
 * secretlint's rule context and translator, across a dozen packages, and
 * leave some shapes off by default (AWS key ids) or out (JWTs, bearer
 * headers, Stripe keys, random strings); gitleaks' rules are TOML for Go's
 * regexp engine, run by its Go binary; Yelp's detect-secrets is Python;
 * `@npmcli/redact` covers npm tokens and URL passwords but also redacts
 * every UUID; `@logtape/redaction` has a JWT pattern and otherwise PII; and
 * `fast-redact`, `@pinojs/redact` and `redact-secrets` go by key path only.
 * None is a synchronous, dependency-free pattern list for a redactor that
 * runs on every call on the host's main thread.
 *
 * @module
 */

/** What replaces a secret, or the secret part of a string. */
export const REDACTED = "[redacted]";

/**
 * Keys redacted by default: a key is secret when its name, lowercased and
 * with everything but letters and digits removed, contains one of them.
 */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze(words(
  "password passwd passphrase secret credential apikey privatekey privkey accesskey accountkey " +
    "signingkey encryptionkey masterkey sshkey sessionid sessionkey authorization",
));

/** Keys redacted by default: a key is secret when one of its words is one of them. */
export const DEFAULT_REDACT_WORDS: readonly string[] = Object.freeze(words(
  "token tokens auth authn oauth pwd pw pass creds cookie cookies jwt bearer otp",
));

/** {@linkcode DEFAULT_REDACT_WORDS}, to look up. */
export const SECRET_WORDS: ReadonlySet<string> = new Set(DEFAULT_REDACT_WORDS);

/** A key's last word that says it describes a secret rather than holds it. */
export const DESCRIBING_WORDS: ReadonlySet<string> = new Set(words(
  "file files path dir filename url uri endpoint name type env var kind format method mode " +
    "scheme algorithm alg encryption policy provider options config settings field fields hint " +
    "prompt label result status state reason error errors",
));

/** A key's word that makes it a count or a limit: its numbers are not secrets. */
export const QUANTITY_WORDS: ReadonlySet<string> = new Set(words(
  "max min n num number count limit size length len total used usage remaining budget ttl " +
    "timeout expiry expires expiration lifetime age duration interval retries seconds ms " +
    "minutes hours days rate per",
));

/** Unquoted values after a secret name in text that are code or a scheme, not a secret. */
export const CODE_WORDS: ReadonlySet<string> = new Set(words(
  "string str number int integer float bool boolean bytes any unknown object none null nil " +
    "undefined true false this self await new function lambda fn optional required bearer " +
    "basic token digest",
));

/** A string this short and plain holds no secret shape. */
export const PLAIN = /^[\w./+-]{0,19}$/;
/** A format string or template (`"%s:%s"`, `"Bearer {token}"`), not a secret. */
export const TEMPLATE = /%[-\d.]*[sdrif]|\{\w*\}|\$\{/;
/** Digits only: a count, kept under a key that names one. */
export const DIGITS = /^\d+$/;

/** Secrets known by their own form, replaced whole; one alternation, so one pass. */
export const TOKENS = new RegExp(
  "\\b(?:" + [
    "(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}", // AWS access key id
    "AIza[\\w-]{35}", // Google (GCP, Firebase) API key
    "ya29\\.[\\w-]{20,}", // Google OAuth access token
    "gh[pousr]_[A-Za-z0-9]{36,251}", // GitHub token: personal, OAuth, user, server, refresh
    "github_pat_\\w{22,247}", // GitHub fine-grained personal access token
    "glpat-[\\w-]{20,}", // GitLab personal access token
    "xox[abeoprs]-[A-Za-z0-9-]{10,}", // Slack token: bot, user, app, config, refresh
    "xapp-\\d-[A-Za-z0-9-]{10,}", // Slack app-level token
    "sk-[\\w-]{20,}", // OpenAI, Anthropic (sk-ant-…) and other sk- keys (checked: not words)
    "[sr]k_(?:live|test)_[A-Za-z0-9]{16,}", // Stripe secret and restricted key
    "whsec_[A-Za-z0-9+/=]{24,}", // Stripe webhook signing secret
    "npm_[A-Za-z0-9]{36}", // npm access token
    "hf_[A-Za-z0-9]{30,}", // Hugging Face token
    "SG\\.[\\w-]{16,}\\.[\\w-]{16,}", // SendGrid API key
    "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", // Shopify access token
    "dapi[a-f0-9]{32}", // Databricks token
    "AGE-SECRET-KEY-1[0-9A-Z]{58}", // age secret key
    "\\d{8,10}:AA[\\w-]{33}", // Telegram bot token
    "eyJ[\\w-]{4,}\\.eyJ[\\w-]{4,}\\.[\\w-]*", // JSON Web Token (header.payload.signature)
  ].join("|") + ")(?![\\w-])",
  "g",
);

/**
 * A shape whose secret part is replaced in place: text that holds it holds
 * `hint` (a quick test first; "" for none), and `replace` gets the match and
 * its groups.
 */
export type Shape = readonly [
  hint: string,
  pattern: RegExp,
  replace: (match: string, ...groups: string[]) => string,
];

/** Secrets known by what surrounds them, in the order they are replaced. */
export const SHAPES: readonly Shape[] = [
  // A PEM private key (RSA, EC, OpenSSH, PKCS#8, PGP): the body, to its END line or the text's end.
  [
    "PRIVATE KEY",
    /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(-----END \1-----|$)/g,
    (_, kind, end) => `-----BEGIN ${kind}-----${REDACTED}${end}`,
  ],
  // A URL or DSN with a password (scheme://user:password@host): the password.
  [
    "://",
    /\b([a-z][a-z0-9+.-]{1,31}:\/\/[^\s:@/?#'"`<>[\]]*):([^\s/?#'"`<>]+)@/gi,
    (_, head) => `${head}:${REDACTED}@`,
  ],
  // A Go MySQL DSN (user:password@tcp(host)/db): the password.
  [
    "@",
    /(?<![\w:/.-])([\w.-]+):([^\s@/:'"`]+)@(?=(?:tcp|unix)\()/g,
    (_, user) => `${user}:${REDACTED}@`,
  ],
  // A Slack or Discord webhook URL: its secret path.
  [
    "https://",
    /(https:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)|(?:[\w-]+\.)?discord(?:app)?\.com\/api\/webhooks\/\d+)\/)[\w/-]+/g,
    (_, head) => `${head}${REDACTED}`,
  ],
  // A signature in a presigned URL's query (AWS, Google Cloud, Azure SAS): the signature.
  [
    "=",
    /([?&](?:X-(?:Amz|Goog)-Signature|[Ss]ignature|sig)=)[^&#\s'"`<>]+/g,
    (_, head) => `${head}${REDACTED}`,
  ],
  // A URL query parameter whose name says it holds a secret (`?api_key=…`, `&key=…`): the value,
  // which ends where a URL's query nested in it starts (`?next=https://a.test/cb?api_key=…`).
  [
    "=",
    /([?&])([\w.~%-]{1,80})=([^&#\s'"`<>?]+(?:\?(?![\w.~%-]{1,80}=)[^&#\s'"`<>?]*)*)/g,
    (match, separator, name) => queryKeySecret(name) ? `${separator}${name}=${REDACTED}` : match,
  ],
  // An HTTP credential header (Authorization, Cookie, X-Api-Key, …): the rest of its line.
  [
    "",
    /\b((?:proxy-)?authorization|(?:set-)?cookie|x-api-key|api-key|x-auth-token|private-token|x-amz-security-token)(\\?["']?[ \t]*[:=][ \t]*\\?["']?)((?:bearer|basic|token|digest|bot|negotiate|ntlm)[ \t]+)?([^\s"'`\\][^\r\n"'`\\]*)/gi,
    (match, name, sep, scheme, value) =>
      headerValue(name, scheme, value) ? `${name}${sep}${scheme ?? ""}${REDACTED}` : match,
  ],
  // A Bearer or Basic credential on its own (`Bearer eyJ…`, `Basic dXNl…`): the credential.
  [
    "",
    /\b(bearer|basic)([ \t]+)([\w~+/.-]{4,}=*)/gi,
    (match, scheme, space, value) =>
      credentialLike(scheme, value) ? `${scheme}${space}${REDACTED}` : match,
  ],
  // curl's `-u user:password` written as one word (`-uuser:password`, `--user=user:password`).
  [
    "-u",
    /(?<![\w-])(-u|--user=)(["']?)([^\s"'`:]+):([^\s"'`]+)/g,
    (_, flag, quote, user) => `${flag}${quote}${user}:${REDACTED}`,
  ],
];

/**
 * `name=value`, `name: value`, `"name": "value"`, `name := value` in text
 * (query and connection strings, .env, YAML, JSON inside a string): the
 * value, when the name is secret. Groups: dashes, name, quote after the
 * name, space, separator, space, then a quoted value (quote, text; Python's
 * `b'…'` too) or a bare one, which is never followed by `(` (a call).
 */
export const ASSIGNMENT =
  /(?<![\w.$-])(--?)?([A-Za-z_][\w.-]{0,79})(\\?["']?)([ \t]*)(:=|=>|[:=])(?!=)([ \t]*)(?:[bBrRuUfF]{0,2}(\\?["'])((?:(?!\7)[^\r\n])*)\7|([^\s"'`&;,<>()[\]{}|\\]+)(?=$|[\s"'`&;,<>)[\]{}|\\]))/g;

/** `--password value`, `-u user:password` in a command line: the value, when the flag is secret. */
export const FLAG =
  /(?<![\w-])(--?[A-Za-z][\w-]*)([ \t]+)(?:(["'])([^"'\r\n]+)|([^\s"'`-][^\s"'`]*))/g;

/** An array item that is a flag alone: `--password`, `-u`. */
export const FLAG_ONLY = /^--?[A-Za-z][\w-]*$/;
/** An array item that is a name alone: `X-Api-Key`, `password`. */
export const NAME_ONLY = /^[A-Za-z_][\w.-]{0,79}$/;

/** A run of the characters random tokens are made of (base64, base64url, PKCE). */
export const RANDOM_RUN = /(?<![\w+/~-])[\w+/~-]{20,}={0,2}/g;
/** Hex, maybe split by `-` `_` `/` (digests, UUIDs, SHAs), or a C literal: never random here. */
const HEX = /^(?:0x)?[\da-f_/-]+(?:u?l{0,2})?$/i;
/** A subresource-integrity hash: kept. */
const SRI = /^sha(?:1|256|384|512)-/;
/** A word-like run: `Json`, `schema`. */
const WORDISH = /[A-Z]?[a-z]{2,}/g;
/** Separators that a random base36 token does not have. */
const SEPARATED = /[/_~-]/;
/** Char codes of a, e, i, o, u. */
const VOWELS = [97, 101, 105, 111, 117];

/**
 * Whether an unquoted value after a secret name is code rather than a
 * secret: a type or keyword (`password: string`), a reference (`$TOKEN`,
 * `cfg.token`, `env?.TOKEN`), a name that holds it (`{ token: token }`,
 * `cookies=merged_cookies`), or — unless written `name=value`, as in a query
 * or `.env` — a plain name or number (`token: fresh`, `auth_retries = 3`).
 *
 * @param value The value, as written.
 * @param name The secret name before it.
 * @param compact Whether it was written `name=value`, with no spaces.
 * @returns `true` when the value is code and is kept.
 */
export function codeLike(value: string, name: string, compact: boolean): boolean {
  if (CODE_WORDS.has(value.toLowerCase()) || /^[$%]/.test(value)) return true;
  if (/^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+!?$/.test(value)) return true;
  const last = keyWords(name).at(-1);
  if (/^[A-Za-z_$][\w$]*$/.test(value) && last && keyWords(value).includes(last)) return true;
  return !compact && /^(?:[A-Za-z_$]+|-?\d+(?:\.\d+)?)$/.test(value);
}

/** Words that make a URL query parameter's name a secret's (`key` alone is one there: Google's `?key=`). */
const QUERY_SECRET_WORDS: ReadonlySet<string> = new Set(words(
  "key apikey secret password passwd credential credentials signature sig session sessionid sid",
));

/** Whether a URL query parameter's name says that its value is a secret. */
function queryKeySecret(name: string): boolean {
  const flat = flatKey(name);
  return DEFAULT_REDACT_KEYS.some((key) => flat.includes(key)) ||
    keyWords(name).some((word) => QUERY_SECRET_WORDS.has(word) || SECRET_WORDS.has(word));
}

/** Whether the value of a credential header is a credential: a cookie has a `=`; code is not one. */
function headerValue(name: string, scheme: string | undefined, value: string): boolean {
  if (!/[A-Za-z0-9]/.test(value)) return false;
  if (scheme) return true;
  if (/cookie/i.test(name)) return value.includes("=");
  const first = value.split(/[\s,;([]/)[0]!;
  return first !== "" && !codeLike(first, name, false);
}

/**
 * Whether a match of `TOKENS` is a token; `sk-` followed by words (`sk-learn-…`) is not.
 *
 * @param match The match.
 * @returns `true` when it is replaced.
 */
export function tokenLike(match: string): boolean {
  return !match.startsWith("sk-") || /[A-Z0-9]/.test(match.slice(3));
}

/**
 * Whether the word after `Bearer`/`Basic` is a credential rather than prose
 * (`Basic usage`, `basic DTD-related`): Basic takes base64 only, and is one
 * whatever its length when it decodes to `user:password`.
 */
function credentialLike(scheme: string, value: string): boolean {
  const word = value.replace(/\.+$/, "");
  const basic = /^basic$/i.test(scheme);
  if (basic && !/^[A-Za-z0-9+/]+=*$/.test(word)) return false;
  if (basic && basicPair(word)) return true;
  if (word.length < 8) return false;
  return word.length >= 32 || /[\d+/=_]/.test(word) || /[A-Z]/.test(word.slice(1));
}

/**
 * Whether base64 decodes to `user:password` (printable ASCII, a colon
 * after a non-empty user, a non-empty password), as Basic credentials do.
 *
 * @param base64 Base64, padded or not.
 * @returns `true` when it decodes to such a pair.
 */
export function basicPair(base64: string): boolean {
  let decoded: string;
  try {
    decoded = atob(base64);
  } catch {
    return false;
  }
  return /^[\x20-\x39\x3b-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

/**
 * A run of base64 characters, or the random parts of it: a path whose
 * segments include a random one loses that segment (a document id in a
 * URL), hex segments (commit SHAs) count for nothing, and a run random as a
 * whole (a key with `/` in it) is replaced whole.
 *
 * @param run A match of `RANDOM_RUN`.
 * @returns The run, its random parts replaced.
 */
export function redactRandom(run: string): string {
  if (!run.includes("/")) return randomLike(run) ? REDACTED : run;
  const rest = run.split("/").filter((part) => !(part.length >= 7 && HEX.test(part))).join("/");
  if (randomLike(rest)) return REDACTED;
  return run.split("/").map((part) => randomLike(part) ? REDACTED : part).join("/");
}

/**
 * Whether a run of base64 characters looks random, as a key or token does.
 * Measured on generated tokens and on the runs of 20+ such characters in
 * ~9,000 source, config and doc files and 200,000 paths: upper, lower and
 * digits mixed, the class changing between neighbours in at least 35% of
 * pairs, and few characters in word-like runs (or more, but with few
 * vowels). That catches random base62/base64 of 20 characters ~85% of the
 * time and of 40 characters ~96%, while what it flags in those files is
 * base64 data, not identifiers like `JsonSchema7TypeUnion`. Lower (or
 * upper) case with digits needs 24 characters, no separator, 15% digits and
 * a change in 25% of pairs (random base36: 89–98%).
 */
function randomLike(run: string): boolean {
  const text = run.replace(/=+$/, "");
  if (text.length < 20 || HEX.test(text) || SRI.test(text)) return false;
  const { upper, lower, digit, vowel, changes } = charStats(text);
  if (upper > 0 && lower > 0 && digit > 0) {
    if (changes < 0.35) return false;
    const wordy = (text.match(WORDISH) ?? []).join("").length / text.length;
    return wordy < 0.4 || (wordy < 0.7 && vowel / lower < 0.3);
  }
  if ((upper > 0 && lower > 0) || digit === 0 || SEPARATED.test(text) || text.length < 24) {
    return false;
  }
  return digit / text.length >= 0.15 && changes >= 0.25;
}

/** A text's upper, lower, digit and vowel counts, and the share of neighbours of different class. */
function charStats(text: string) {
  let upper = 0, lower = 0, digit = 0, vowel = 0, pairs = 0, differ = 0, previous = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const kind = charKind(code);
    if (kind === 1) upper++;
    else if (kind === 2) lower++;
    else if (kind === 3) digit++;
    if (kind === 2 && VOWELS.includes(code)) vowel++;
    if (kind !== 0 && previous !== 0) {
      pairs++;
      if (kind !== previous) differ++;
    }
    previous = kind;
  }
  return { upper, lower, digit, vowel, changes: pairs === 0 ? 0 : differ / pairs };
}

/** 1 for an upper-case letter, 2 lower-case, 3 a digit, 0 anything else. */
function charKind(code: number): number {
  if (code >= 65 && code <= 90) return 1;
  if (code >= 97 && code <= 122) return 2;
  return code >= 48 && code <= 57 ? 3 : 0;
}

/**
 * A key lowercased, with all but letters and digits removed: `X-Api-Key` → `xapikey`.
 *
 * @param key The key.
 * @returns Its flat form.
 */
export function flatKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * A key's words, lowercased: `xApiKey_v2` → `x`, `api`, `key`, `v`, `2`.
 *
 * @param key The key.
 * @returns Its words.
 */
export function keyWords(key: string): string[] {
  return (key.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? []).map((word) => word.toLowerCase());
}

function words(list: string): string[] {
  return list.split(" ");
}
