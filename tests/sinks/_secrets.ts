/**
 * Tool arguments that hold a secret, and ordinary ones that hold none: the
 * table the redactor's tests run, shared with end-to-end checks through the
 * interaction log and the sinks.
 *
 * Every secret here is generated from a fixed label (so the table is the
 * same on every run), has the shape of a real one and says `FAKE` where the
 * shape leaves room; none is a real or leaked credential.
 *
 * @module
 */

/** Arguments that hold a secret; `secret` must not survive redaction. */
export interface SecretCase {
  name: string;
  args: Record<string, unknown>;
  /** Text found in `JSON.stringify(args)` that must not be in the redacted copy's. */
  secret: string;
  /** The secret as the arguments also hold it (percent-encoded, once or twice): gone too. */
  forms?: readonly string[];
  /** Text of the arguments that holds no secret and must still be in the redacted copy. */
  kept?: readonly string[];
}

/** Arguments that hold no secret and must come back unchanged. */
export interface OrdinaryCase {
  name: string;
  args: Record<string, unknown>;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const BASE64 = ALNUM + "+/";
const BASE64URL = ALNUM + "-_";
const HEX = "0123456789abcdef";

/** Random-looking text, the same for the same label. */
function fake(label: string, alphabet: string, length: number): string {
  let state = 2166136261;
  for (const char of label) state = Math.imul(state ^ char.charCodeAt(0), 16777619) >>> 0;
  let out = "";
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

function base64url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** `{ [key]: value }` at `depth` levels of objects, every other level inside an array. */
function nested(depth: number, key: string, value: unknown): Record<string, unknown> {
  let inner: Record<string, unknown> = { [key]: value, note: "leaf" };
  for (let level = depth - 1; level >= 1; level--) {
    inner = level % 2 === 0 ? { items: [{ id: level }, inner] } : { child: inner };
  }
  return inner;
}

/** A PEM block of `kind` whose body lines are generated from `label`. */
function pem(kind: string, label: string): { text: string; line: string } {
  const lines = Array.from({ length: 6 }, (_, i) => fake(`${label}/${i}`, BASE64, 64));
  const body = lines.join("\n");
  return { text: `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----\n`, line: lines[2]! };
}

/** Secret key names, one per depth 1 to 20, under which a plain-word password sits. */
const SECRET_KEYS = [
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "client_secret",
  "token",
  "access_token",
  "authToken",
  "Authorization",
  "credentials",
  "auth",
  "api_key",
  "apiKey",
  "X-Api-Key",
  "private_key",
  "session_id",
  "cookie",
  "AWS_SECRET_ACCESS_KEY",
  "db-password",
];

const BY_KEY: SecretCase[] = SECRET_KEYS.map((key, i) => {
  const secret = `FAKE-${fake(`key/${key}`, LOWER + DIGITS, 10)}`;
  return { name: `"${key}" at depth ${i + 1}`, args: nested(i + 1, key, secret), secret };
});

const AWS_KEY_ID = `AKIAFAKE${fake("aws-id", UPPER + DIGITS, 12)}`;
const AWS_SECRET = `${fake("aws-secret/a", ALNUM, 18)}/${fake("aws-secret/b", BASE64, 21)}`;
const GCP_KEY = `AIzaFAKE${fake("gcp", BASE64URL, 31)}`;
const GH_PAT = `ghp_FAKE${fake("ghp", ALNUM, 32)}`;
const GH_OAUTH = `gho_FAKE${fake("gho", ALNUM, 32)}`;
const GH_APP = `ghs_FAKE${fake("ghs", ALNUM, 32)}`;
const GH_FINE = `github_pat_FAKE${fake("gh-fine", ALNUM, 18)}_${fake("gh-fine/2", ALNUM, 59)}`;
const SLACK_BOT = `xoxb-${fake("slack/1", DIGITS, 11)}-${fake("slack/2", DIGITS, 13)}-FAKE${
  fake("slack/3", ALNUM, 20)
}`;
const SLACK_HOOK = `T${fake("hook/1", UPPER + DIGITS, 8)}/B${fake("hook/2", UPPER + DIGITS, 10)}/${
  fake("hook/3", ALNUM, 24)
}`;
const OPENAI = `sk-proj-FAKE${fake("openai", BASE64URL, 60)}`;
const ANTHROPIC = `sk-ant-api03-FAKE${fake("anthropic", BASE64URL, 89)}AA`;
const STRIPE = `sk_live_FAKE${fake("stripe", ALNUM, 95)}`;
const STRIPE_RESTRICTED = `rk_test_FAKE${fake("stripe-rk", ALNUM, 40)}`;
const NPM = `npm_FAKE${fake("npm", ALNUM, 32)}`;
const GITLAB = `glpat-FAKE${fake("gitlab", BASE64URL, 16)}`;
const HUGGING_FACE = `hf_FAKE${fake("hf", ALNUM, 30)}`;
const SENDGRID = `SG.FAKE${fake("sg/1", BASE64URL, 18)}.${fake("sg/2", BASE64URL, 43)}`;
const GOOGLE_OAUTH = `ya29.FAKE${fake("ya29", BASE64URL, 120)}`;
const TELEGRAM = `${fake("tg/1", DIGITS, 10)}:AAFAKE${fake("tg/2", BASE64URL, 29)}`;
const DISCORD_HOOK = fake("discord", BASE64URL, 68);
const JWT_SIGNATURE = fake("jwt", BASE64URL, 43);
const JWT = [
  base64url('{"alg":"HS256","typ":"JWT"}'),
  base64url('{"sub":"fake-user-42","name":"FAKE test token","iat":1767225600}'),
  JWT_SIGNATURE,
].join(".");
const OPAQUE_BEARER = `FAKE${fake("bearer", BASE64URL, 36)}`;
const BASIC = btoa(`deploy:FAKE-${fake("basic", ALNUM, 12)}`);
const RSA = pem("RSA PRIVATE KEY", "rsa");
const OPENSSH = pem("OPENSSH PRIVATE KEY", "openssh");
const SERVICE_ACCOUNT = pem("PRIVATE KEY", "gcp-sa");
const AGE = `AGE-SECRET-KEY-1FAKE${fake("age", UPPER + DIGITS, 54)}`;
const RANDOM_40 = fake("random/40", BASE64, 40);
const RANDOM_32 = fake("random/32", ALNUM, 32);
const PRESIGNED = fake("presigned", HEX, 64);
const PW = (label: string) => `FAKE-${fake(`pw/${label}`, ALNUM, 14)}`;
const PG_PW = PW("pg");
const MONGO_PW = PW("mongo");
const REDIS_PW = PW("redis");
const GIT_PW = PW("git");
const QUERY_PW = PW("query");
const ADO_PW = PW("ado");
const ENV_PW = PW("env");
const FLAG_PW = PW("flag");
const MYSQL_PW = PW("mysql");
const CURL_PW = PW("curl");
const YAML_PW = PW("yaml");
const JSON_SECRET = PW("json");
const DSN_PW = PW("go-dsn");
const COOKIE = fake("cookie", ALNUM, 32);
const HEADER_KEY = `FAKE${fake("header-key", LOWER + DIGITS, 28)}`;

const BY_SHAPE: SecretCase[] = [
  {
    name: "AWS access key id under an innocent key",
    args: { value: AWS_KEY_ID },
    secret: AWS_KEY_ID,
  },
  {
    name: "AWS secret access key on its own, in an array",
    args: { values: ["us-east-1", AWS_SECRET] },
    secret: AWS_SECRET,
  },
  {
    name: "AWS keys in an `aws configure` command",
    args: { command: `aws configure set aws_secret_access_key ${AWS_SECRET} --profile ci` },
    secret: AWS_SECRET,
  },
  {
    name: "Google API key in a URL",
    args: { url: `https://maps.example.com/api?key=${GCP_KEY}&q=x` },
    secret: GCP_KEY,
  },
  {
    name: "GCP service-account file content",
    args: {
      path: "deploy/sa.json",
      content: JSON.stringify(
        {
          type: "service_account",
          project_id: "fake-project",
          private_key_id: fake("sa-id", HEX, 40),
          private_key: SERVICE_ACCOUNT.text,
          client_email: "ci@fake-project.iam.gserviceaccount.com",
        },
        null,
        2,
      ),
    },
    secret: SERVICE_ACCOUNT.line,
  },
  { name: "GitHub personal token under an innocent key", args: { text: GH_PAT }, secret: GH_PAT },
  {
    name: "GitHub OAuth token in a git remote",
    args: { command: `git remote add origin https://${GH_OAUTH}@github.com/o/r.git` },
    secret: GH_OAUTH,
  },
  { name: "GitHub app token in an array", args: { list: ["a", GH_APP, "b"] }, secret: GH_APP },
  {
    name: "GitHub fine-grained token in prose",
    args: { message: `use ${GH_FINE} for the release job` },
    secret: GH_FINE,
  },
  { name: "Slack bot token", args: { env: ["SLACK=" + SLACK_BOT] }, secret: SLACK_BOT },
  {
    name: "Slack webhook URL",
    args: { url: `https://hooks.slack.com/services/${SLACK_HOOK}` },
    secret: SLACK_HOOK.split("/")[2]!,
  },
  { name: "OpenAI key", args: { header: OPENAI }, secret: OPENAI },
  {
    name: "Anthropic key in an export",
    args: { script: `export ANTHROPIC=${ANTHROPIC}\nrun` },
    secret: ANTHROPIC,
  },
  { name: "Stripe secret key", args: { data: { stripe: STRIPE } }, secret: STRIPE },
  {
    name: "Stripe restricted key",
    args: { data: [[STRIPE_RESTRICTED]] },
    secret: STRIPE_RESTRICTED,
  },
  {
    name: "npm token in .npmrc content",
    args: { path: ".npmrc", content: `//registry.npmjs.org/:_authToken=${NPM}\n` },
    secret: NPM,
  },
  { name: "GitLab token", args: { value: GITLAB }, secret: GITLAB },
  { name: "Hugging Face token", args: { value: HUGGING_FACE }, secret: HUGGING_FACE },
  { name: "SendGrid key", args: { value: SENDGRID }, secret: SENDGRID },
  { name: "Google OAuth access token", args: { value: GOOGLE_OAUTH }, secret: GOOGLE_OAUTH },
  {
    name: "Telegram bot token in a URL",
    args: { url: `https://api.telegram.org/bot${TELEGRAM}/getMe` },
    secret: TELEGRAM.split(":AA")[1]!,
  },
  {
    name: "Discord webhook URL",
    args: {
      url: `https://discord.com/api/webhooks/${fake("discord-id", DIGITS, 18)}/${DISCORD_HOOK}`,
    },
    secret: DISCORD_HOOK,
  },
  { name: "JWT under an innocent key", args: { value: JWT }, secret: JWT_SIGNATURE },
  {
    name: "Bearer header in a curl command",
    args: {
      command: `curl -sS -H 'Authorization: Bearer ${OPAQUE_BEARER}' https://api.example.com/v1/me`,
    },
    secret: OPAQUE_BEARER,
  },
  { name: "Basic credentials on their own", args: { header: `Basic ${BASIC}` }, secret: BASIC },
  {
    name: "RSA private key file content",
    args: { path: "id_rsa", content: RSA.text },
    secret: RSA.line,
  },
  {
    name: "OpenSSH private key with CRLF",
    args: { content: OPENSSH.text.replaceAll("\n", "\r\n") },
    secret: OPENSSH.line,
  },
  {
    name: "postgres DSN with a password",
    args: { dsn: `postgres://app:${PG_PW}@db.internal:5432/prod` },
    secret: PG_PW,
  },
  {
    name: "mongodb+srv URL with a password, in an array",
    args: { urls: [`mongodb+srv://admin:${MONGO_PW}@cluster0.example.net/?retryWrites=true`] },
    secret: MONGO_PW,
  },
  {
    name: "redis URL with only a password",
    args: { url: `redis://:${REDIS_PW}@cache:6379/0` },
    secret: REDIS_PW,
  },
  {
    name: "git clone with user and password",
    args: { command: `git clone https://bot:${GIT_PW}@git.example.com/team/repo.git` },
    secret: GIT_PW,
  },
  {
    name: "password in a query string",
    args: { url: `https://example.com/login?user=al&password=${QUERY_PW}&next=/` },
    secret: QUERY_PW,
  },
  {
    name: "password in an ADO connection string",
    args: { conn: `Server=db;Database=app;User Id=sa;Password=${ADO_PW};Encrypt=true` },
    secret: ADO_PW,
  },
  {
    name: ".env content",
    args: { content: `PORT=8080\nDB_PASSWORD=${ENV_PW}\nDEBUG=1\n` },
    secret: ENV_PW,
  },
  {
    name: "--password flag in a command",
    args: {
      argv: ["psql", "--password", FLAG_PW],
      command: `backup --password ${FLAG_PW} --out /tmp/x`,
    },
    secret: FLAG_PW,
  },
  {
    name: "--password= in a mysql command",
    args: { command: `mysql -u root --password=${MYSQL_PW} app` },
    secret: MYSQL_PW,
  },
  {
    name: "curl -u user:password",
    args: { command: `curl -u admin:${CURL_PW} https://example.com` },
    secret: CURL_PW,
  },
  {
    name: "password in YAML content",
    args: { content: `db:\n  host: pg\n  password: ${YAML_PW}\n  port: 5432\n` },
    secret: YAML_PW,
  },
  {
    name: "secret in JSON inside a string",
    args: { body: `{"client_id":"abc","client_secret":"${JSON_SECRET}"}` },
    secret: JSON_SECRET,
  },
  {
    name: "Go MySQL DSN",
    args: { dsn: `app:${DSN_PW}@tcp(db:3306)/prod?parseTime=true` },
    secret: DSN_PW,
  },
  {
    name: "AWS presigned URL signature",
    args: {
      url:
        `https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${PRESIGNED}`,
    },
    secret: PRESIGNED,
  },
  { name: "age secret key", args: { value: AGE }, secret: AGE },
  {
    name: "random base64 string under an innocent key",
    args: { data: { blob: RANDOM_40 } },
    secret: RANDOM_40,
  },
  {
    name: "random string inside a sentence",
    args: { note: `the key is ${RANDOM_32} for staging` },
    secret: RANDOM_32,
  },
  { name: "secret-shaped object key", args: { owners: { [GH_PAT]: "ci" } }, secret: GH_PAT },
  {
    name: "API key in header pairs",
    args: { headers: [["Accept", "application/json"], ["X-Api-Key", HEADER_KEY]] },
    secret: HEADER_KEY,
  },
  {
    name: "cookie header line",
    args: { raw: `GET / HTTP/1.1\nCookie: sid=${COOKIE}; theme=dark\n` },
    secret: COOKIE,
  },
];

const enc = encodeURIComponent;
/** A secret with no shape of its own: found by its key or name only. */
const WORD = (label: string) => `FAKE-${fake(`word/${label}`, LOWER + DIGITS, 10)}`;
const REDIRECT_PW = WORD("redirect");
const DOUBLE_PW = WORD("double");
const RESERVED_PW = `${WORD("reserved")}/+=!`;
const USERINFO_PW = WORD("userinfo");
const ENCODED_AWS = `AKIAFAKE${fake("aws-encoded", UPPER + DIGITS, 12)}`;
const DOUBLE_AWS = `AKIAFAKE${fake("aws-double", UPPER + DIGITS, 12)}`;
const SPELLED_GH = `ghp_FAKE${fake("ghp-spelled", ALNUM, 32)}`;
const PLUS_BASIC = btoa(`ci:${fake("plus-basic", LOWER, 6)}`);
const SHORT_BASIC = btoa("a:b");
const HEADER_BASIC = btoa(`deploy:${WORD("header-basic")}`);
const CURL_USER_PW = WORD("curl-user");
const JSON_NUMBER = 90417263;
const JSON_KEY = WORD("json-key");
const JSON_NESTED = WORD("json-nested");

/** Each character of `text` percent-encoded, unreserved ones too. */
function spelled(text: string): string {
  return [...text].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).join("");
}

/** Secrets seen only once their text is decoded: percent-encoding, Basic's base64, JSON in a string. */
const BY_DECODING: SecretCase[] = [
  {
    name: "api_key in a percent-encoded redirect target",
    args: {
      url: `https://example.com/login?next=${
        enc(`https://api.example.com/cb?api_key=${REDIRECT_PW}&state=s1`)
      }&lang=en`,
    },
    secret: REDIRECT_PW,
    kept: ["login?next=https%3A%2F%2Fapi.example.com%2Fcb%3Fapi_key%3D", "%26state%3Ds1&lang=en"],
  },
  {
    name: "password in a redirect target encoded twice",
    args: {
      url: `https://example.com/sso?RelayState=${
        enc(enc(`https://app.example.com/cb?password=${DOUBLE_PW}&state=s2`))
      }`,
    },
    secret: DOUBLE_PW,
    kept: ["sso?RelayState=https%253A%252F%252Fapp.example.com", "%2526state%253Ds2"],
  },
  {
    name: "password with reserved characters, encoded twice",
    args: { url: `https://example.com/?next=${enc(enc(`/cb?password=${RESERVED_PW}&x=1`))}` },
    secret: RESERVED_PW,
    forms: [enc(RESERVED_PW), enc(enc(RESERVED_PW))],
    kept: ["https://example.com/?next=%252Fcb%253Fpassword%253D", "%2526x%253D1"],
  },
  {
    name: "AWS access key id in a percent-encoded redirect target",
    args: {
      url: `https://x.test/cb?continue=${enc(`https://ci.example.com/hook?ref=${ENCODED_AWS}`)}`,
    },
    secret: ENCODED_AWS,
    kept: ["https://x.test/cb?continue=https%3A%2F%2Fci.example.com%2Fhook%3Fref%3D"],
  },
  {
    name: "AWS access key id encoded twice",
    args: { next: `/login?next=${enc(enc(`/hook?ref=${DOUBLE_AWS}`))}` },
    secret: DOUBLE_AWS,
    kept: ["/login?next=%252Fhook%253Fref%253D"],
  },
  {
    name: "GitHub token with every character percent-encoded",
    args: { url: `https://example.com/cb?q=${spelled(SPELLED_GH)}&page=2` },
    secret: SPELLED_GH,
    forms: [spelled(SPELLED_GH)],
    kept: ["https://example.com/cb?q=", "&page=2"],
  },
  {
    name: "password in userinfo of an encoded redirect",
    args: {
      url: `https://example.com/?to=${enc(`https://deploy:${USERINFO_PW}@git.example.com/r`)}`,
    },
    secret: USERINFO_PW,
    kept: ["https://example.com/?to=https%3A%2F%2Fdeploy%3A", "%40git.example.com%2Fr"],
  },
  {
    name: "Basic credentials with `+` for the space in a query",
    args: { url: `https://example.com/proxy?h=Basic+${PLUS_BASIC}&x=1` },
    secret: PLUS_BASIC,
    kept: ["https://example.com/proxy?h=Basic+", "&x=1"],
  },
  {
    name: "Basic credentials in a curl header",
    args: { command: `curl -H 'Authorization: Basic ${HEADER_BASIC}' https://api.example.com/v1` },
    secret: HEADER_BASIC,
    kept: ["curl -H 'Authorization: Basic ", "' https://api.example.com/v1"],
  },
  {
    name: "curl --user=user:password and -uuser:password",
    args: {
      long: `curl --user=deploy:${CURL_USER_PW} https://example.com`,
      short: `curl -udeploy:${CURL_USER_PW} https://example.com`,
    },
    secret: CURL_USER_PW,
    kept: ["curl --user=deploy:", "curl -udeploy:", " https://example.com"],
  },
  {
    name: "Basic credentials on their own, shorter than a token",
    args: { header: `Basic ${SHORT_BASIC}` },
    secret: SHORT_BASIC,
    kept: ["Basic "],
  },
  {
    name: "JSON in a string: a number under a secret key",
    args: { body: `{"user":"a","db":{"password":${JSON_NUMBER},"host":"pg"}}` },
    secret: String(JSON_NUMBER),
    kept: ['{"user":"a","db":{"password":', ',"host":"pg"}}'],
  },
  {
    name: "JSON in a string: an object under a secret key",
    args: { body: `{"credentials":{"user":"deploy","key":"${JSON_KEY}"},"region":"eu"}` },
    secret: JSON_KEY,
    kept: ['"region":"eu"'],
  },
  {
    name: "JSON in a string in JSON in a string",
    args: {
      payload: JSON.stringify({
        kind: "webhook",
        body: JSON.stringify({ session: "s1", credentials: { user: "ci", value: JSON_NESTED } }),
      }),
    },
    secret: JSON_NESTED,
    kept: ['{"kind":"webhook","body":"{\\"session\\":\\"s1\\"'],
  },
];

/** Arguments holding a secret: by key at depths 1–20, by shape anywhere, then once decoded. */
export const SECRET_CASES: SecretCase[] = [...BY_KEY, ...BY_SHAPE, ...BY_DECODING];

const TS_SNIPPET = `export async function login(user: string, password: string): Promise<Session> {
  const token = await auth.signIn(user, password);
  const apiKey = process.env.API_KEY;
  headers.set("Authorization", \`Bearer \${token}\`);
  return { token, apiKey, expires: Date.now() + TTL };
}
`;

const PY_SNIPPET = `def connect(password: str, token: str | None = None) -> Session:
    api_key = os.environ["API_KEY"]
    secret = load_secret(name="db")
    if token is None:
        token = refresh(api_key)
    return Session(password=password, token=token)
`;

/** Arguments holding no secret; they must come back unchanged. */
export const ORDINARY_CASES: OrdinaryCase[] = [
  { name: "a short path", args: { path: "src/main.ts" } },
  {
    name: "long absolute paths",
    args: {
      paths: [
        "/home/developer/projects/AcmeCorpInternalDashboard2024/packages/ui/src/components/AccountSettingsPanel.tsx",
        "/Users/JohnSmith/Library/Application Support/Code/User/workspaceStorage/settings.json",
        "node_modules/.deno/@modelcontextprotocol+sdk@1.32.2/node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js",
        "C:\\Users\\Build\\AppData\\Local\\Temp\\toolhost-3f2a\\out.log",
      ],
    },
  },
  {
    name: "TypeScript that handles tokens",
    args: {
      path: "src/auth.ts",
      old_string: TS_SNIPPET,
      new_string: TS_SNIPPET.replace("TTL", "2 * TTL"),
    },
  },
  { name: "Python that handles passwords", args: { content: PY_SNIPPET } },
  {
    name: "a Python signature (py_set_signature)",
    args: {
      path: "a.py",
      name: "describe",
      content: "def describe(self, verbose: bool = False) -> str",
    },
  },
  {
    name: "git SHAs and file digests",
    args: {
      commit: "3f786850e387550fdab836ed7e6dc881de23001b",
      short: "3f78685",
      sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      md5: "d41d8cd98f00b204e9800998ecf8427e",
      image:
        "ghcr.io/acme/api@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    },
  },
  {
    name: "a commit URL and a package integrity hash",
    args: {
      url: "https://github.com/inspect-js/hasOwn/commit/91f624768dd0f7db0d019b89d4d86bd6fbb2fc0a",
      integrity:
        "sha512-7HzDaKmrgjbNalo2ZP1A4TMnXaVbm3kvrGBGa3Uz8Eh1JaokhjEGXrBkAx2qxy3ypWVkq1mvBfZgpTYbS2bfug==",
    },
  },
  {
    name: "UUIDs",
    args: { ids: ["123e4567-e89b-12d3-a456-426614174000", "6F9619FF-8B86-D011-B42D-00C04FC964FF"] },
  },
  {
    name: "numbers under token-count keys",
    args: { max_tokens: 4096, max_output_tokens: 1024, token_count: 17, token_budget: 2000 },
  },
  {
    name: "booleans and descriptors under secret-sounding keys",
    args: {
      use_auth: true,
      password_required: false,
      auth_type: "bearer",
      token_url: "https://auth.example.com/oauth/token",
      password_file: "/run/secrets/db_password",
      secret_name: "prod/db",
    },
  },
  {
    name: "words that contain secret words",
    args: {
      author: "Jane Doe",
      authority: "example.com",
      tokenizer: "cl100k_base",
      passenger: "Al",
    },
  },
  {
    name: "a session filter (read_interactions)",
    args: { session: "s2", tool: "read_file", limit: 50 },
  },
  {
    name: "long English text about passwords and tokens",
    args: {
      text:
        "Basic usage: the server never stores a password in clear text. Bearer tokens expire after an hour, " +
        "and the refresh flow is described in the authentication guide. Internationalization and " +
        "characterization tests cover the login page; see docs/security/threat-model.md for the rest.",
    },
  },
  {
    name: "identifiers with digits and capitals",
    args: {
      symbols: [
        "JsonSchema7TypeUnion",
        "convertIPv4MappedIPv6ToIPv4",
        "getHTTP2ConnectionPoolV3",
        "PyUnicode_AsUTF8String",
      ],
    },
  },
  {
    name: "URLs and remotes without credentials",
    args: {
      urls: [
        "https://example.com/search?q=token+rotation&page=2",
        "git@github.com:acme/toolhost.git",
        "ssh://git@git.example.com:2222/acme/repo.git",
        "postgres://db.internal:5432/prod",
      ],
      email: "jane.doe@example.com",
    },
  },
  {
    name: "a search command",
    args: { command: "rg -n 'password' src/ --glob '*.ts' | head -n 20" },
  },
  {
    name: "percent-encoded URLs and text without a secret, and malformed escapes",
    args: {
      next:
        "https://example.com/login?next=https%3A%2F%2Fapp.example.com%2Fhome%3Ftab%3Dsettings%26q%3Dtoken%2Brotation",
      search: "https://example.com/search?q=basic+auth+setup&page=2",
      path: "docs/My%20Notes/caf%C3%A9%20%E2%9C%93.md",
      text: "100% sure: %zz, %E2%82, %C0%AF, %ED%A0%80 and a lone %",
    },
  },
  {
    name: "JSON in strings without a secret, and text that only looks like JSON",
    args: {
      body: '{"query":"deno","page":2,"filters":{"lang":"ts","max_tokens":4096}}',
      nested: JSON.stringify({ body: JSON.stringify({ q: "x", token_url: "https://a.test/t" }) }),
      pretty: '{\n  "name": "toolhost",\n  "version": "0.1.0"\n}\n',
      loose: "{oops: not json, [1, 2]}",
      list: "[1, 2, 3]",
    },
  },
  {
    name: "dates, versions and nulls",

    args: { at: "2026-11-24T10:00:00.000Z", version: "1.32.2", parent: null, tags: [] },
  },
];
