/**
 * Secrets hidden by key and by shape, at every depth, and in decoded text
 * (percent-encoding, Basic's base64, JSON inside a string); ordinary
 * arguments untouched.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../_assert.ts";
import { REDACTED, Redactor } from "../../sinks/redact.ts";
import { ORDINARY_CASES, SECRET_CASES } from "./_secrets.ts";

/** Text as it is written inside a JSON string. */
function escaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

Deno.test("redactor: no secret survives, by key at depths 1 to 20, by shape anywhere, or encoded", async (t) => {
  assert(SECRET_CASES.length >= 40, `only ${SECRET_CASES.length} cases`);
  const redactor = new Redactor();
  for (const { name, args, secret, forms = [], kept = [] } of SECRET_CASES) {
    await t.step(name, () => {
      const sent = JSON.stringify(args);
      const all = [secret, ...forms];
      assert(all.some((form) => sent.includes(form)), "the case holds its secret");
      for (const part of kept) assertStringIncludes(sent, escaped(part), "the case holds it");
      const out = JSON.stringify(redactor.apply(args));
      for (const form of all) assertFalse(out.includes(form), `"${form}" survived in ${out}`);
      for (const part of kept) assertStringIncludes(out, escaped(part), "kept");
      assertStringIncludes(out, REDACTED);
    });
  }
});

Deno.test("redactor: ordinary arguments come back unchanged, as the same value", async (t) => {
  const redactor = new Redactor();
  for (const { name, args } of ORDINARY_CASES) {
    await t.step(name, () => assert(redactor.apply(args) === args));
  }
});

Deno.test("redactor: a value with a secret comes back as a copy, the original untouched", () => {
  const redactor = new Redactor();
  const shared = { path: "src/a.py" };
  const args = {
    first: shared,
    list: ["ls", "--password", "hunter2", { ok: true }],
    deep: { env: { API_TOKEN: "abc123def456" }, keep: [1, 2, 3] },
    last: "plain",
  };
  const before = structuredClone(args);
  const out = redactor.apply(args) as typeof args;
  assertEquals(args, before);
  assertEquals(out, {
    first: shared,
    list: ["ls", "--password", REDACTED, { ok: true }],
    deep: { env: { API_TOKEN: REDACTED }, keep: [1, 2, 3] },
    last: "plain",
  });
  assert(out !== args && out.list !== args.list && out.deep.env !== args.deep.env);
  // What holds no secret is shared, not copied.
  assert(out.first === shared && out.list[3] === args.list[3] && out.deep.keep === args.deep.keep);
  assertEquals(Object.keys(out), Object.keys(args));
});

Deno.test("redactor: only the secret part of a string is replaced", async (t) => {
  const redactor = new Redactor();
  const cases: [string, string, string][] = [
    [
      "a DSN keeps user and host",
      "postgres://app:FAKE-pw-9x@db:5432/prod",
      "postgres://app:[redacted]@db:5432/prod",
    ],
    [
      "a curl header keeps its scheme",
      "curl -H 'Authorization: Bearer FAKEtok3n0paque' https://x.test",
      "curl -H 'Authorization: Bearer [redacted]' https://x.test",
    ],
    [
      "a query keeps the other parameters",
      "/login?user=al&password=FAKE-9q&next=/",
      "/login?user=al&password=[redacted]&next=/",
    ],
    [
      "a URL's query keeps the parameters whose names hold no secret",
      "https://api.test/v1/search?q=deno&api_key=abc123&page=2&key=k1&access_token=t0k&sig=s1g&session=77",
      "https://api.test/v1/search?q=deno&api_key=[redacted]&page=2&key=[redacted]&access_token=[redacted]&sig=[redacted]&session=[redacted]",
    ],
    [
      "a URL's query names that only look like secret ones are kept",
      "https://shop.test/?monkey=1&keyword=tea&keys_count=3&author=al",
      "https://shop.test/?monkey=1&keyword=tea&keys_count=3&author=al",
    ],
    [
      "a connection string keeps its fields",
      "Server=db;Password=FAKE-7;Encrypt=true",
      "Server=db;Password=[redacted];Encrypt=true",
    ],
    [
      "a curl -u keeps the user",
      "curl -u admin:FAKE-pw1 https://x.test",
      "curl -u admin:[redacted] https://x.test",
    ],
    [
      "JSON in a string keeps its keys",
      '{"user":"al","password":"FAKE 7 x"}',
      '{"user":"al","password":"[redacted]"}',
    ],
    ["a token in prose", "set ghp_FAKE0123456789abcdefghijklmnopqrstuv now", "set [redacted] now"],
    [
      "an encoded redirect keeps all but the encoded value of its secret parameter",
      "https://example.com/login?next=https%3A%2F%2Fapi.example.com%2Fcb%3Fapi_key%3Dsk_live_FAKEabc123def456ghi789%26state%3Ds1&lang=en",
      "https://example.com/login?next=https%3A%2F%2Fapi.example.com%2Fcb%3Fapi_key%3D[redacted]%26state%3Ds1&lang=en",
    ],
    [
      "a redirect encoded twice",
      "/login?next=%252Fcb%253Fpassword%253DFAKE-pw%2526x%253D1",
      "/login?next=%252Fcb%253Fpassword%253D[redacted]%2526x%253D1",
    ],
    [
      "a redirect encoded four times",
      "/login?next=%2525253Fsig%2525253DFAKE-s1g&x=1",
      "/login?next=%2525253Fsig%2525253D[redacted]&x=1",
    ],
    [
      "a redirect not encoded",
      "/login?next=https://api.test/cb?api_key=FAKE-k1&lang=en",
      "/login?next=https://api.test/cb?api_key=[redacted]&lang=en",
    ],
    [
      "an encoded token between readable parameters",
      "/cb?a=1&q=%41%4B%49%41%46%41%4B%45%31%32%33%34%35%36%37%38%39%30%41%42&b=2",
      "/cb?a=1&q=[redacted]&b=2",
    ],
    [
      "a malformed escape before an encoded secret",
      "?next=%E2%82%zz%3Fapi_key%3DFAKE-k2",
      "?next=%E2%82%zz%3Fapi_key%3D[redacted]",
    ],
    [
      "Basic credentials with `+` for the space keep the scheme",
      "https://x.test/p?h=Basic+YTpi&x=1",
      "https://x.test/p?h=Basic+[redacted]&x=1",
    ],
    ["bare Basic credentials of user:password", "Basic YTpi", "Basic [redacted]"],
    [
      "curl --user= keeps the user",
      "curl --user=admin:FAKE-pw1 https://x.test",
      "curl --user=admin:[redacted] https://x.test",
    ],
    [
      "JSON in a string: a number under a secret key",
      '{"db":{"password":12345,"host":"pg"}}',
      '{"db":{"password":"[redacted]","host":"pg"}}',
    ],
    [
      "indented JSON in a string keeps its indent and final newline",
      '{\n  "token": "FAKE-t",\n  "n": 1\n}\n',
      '{\n  "token": "[redacted]",\n  "n": 1\n}\n',
    ],
    [
      "text that only looks like JSON is checked as text",
      '{"password": "FAKE 7 x", oops}',
      '{"password": "[redacted]", oops}',
    ],
    [
      "a PEM key keeps its BEGIN and END lines",
      "-----BEGIN PRIVATE KEY-----\nMIIFAKE\nABC=\n-----END PRIVATE KEY-----\n",
      "-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\n",
    ],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assertEquals(redactor.apply({ value: input }), { value: expected }));
  }
});

Deno.test("redactor: JSON inside a string stays JSON, its secrets replaced at one and two levels", () => {
  const inner = { session: "s1", credentials: { user: "ci", pin: 4321 }, tags: ["a"] };
  const args = {
    body: JSON.stringify({ user: "a", password: "FAKE-hunter2", nested: { api_key: "FAKE-k" } }),
    payload: JSON.stringify({ kind: "webhook", body: JSON.stringify(inner) }),
  };
  const out = new Redactor().apply(args) as Record<string, string>;
  assertEquals(JSON.parse(out.body!), {
    user: "a",
    password: REDACTED,
    nested: { api_key: REDACTED },
  });
  const payload = JSON.parse(out.payload!);
  assertEquals(payload.kind, "webhook");
  assertEquals(JSON.parse(payload.body), {
    session: "s1",
    credentials: { user: REDACTED, pin: REDACTED },
    tags: ["a"],
  });
});

Deno.test("redactor: malformed percent escapes are kept as they are, never thrown on", async (t) => {
  const redactor = new Redactor();
  const malformed = [
    "%",
    "%%",
    "a%zz",
    "%2",
    "100%",
    "%E2%82",
    "%C0%AF",
    "%ED%A0%80",
    "%F4%90%80%80",
    "%FF%FE",
    "%%41",
  ];
  for (const text of malformed) {
    await t.step(text, () => assertEquals(redactor.text(`see ${text} here`), `see ${text} here`));
  }
});

Deno.test("redactor: key names are matched as words", async (t) => {
  const redactor = new Redactor();
  const secret = [
    "pwd",
    "passphrase",
    "credentials",
    "auth",
    "X-Auth-Token",
    "apiKey",
    "APIKey",
    "privateKey",
    "access_key_id",
    "clientSecret",
    "sessionId",
    "Set-Cookie",
    "db.password",
    "oauth2Token",
  ];
  const plain = [
    "author",
    "authority",
    "tokenizer",
    "session",
    "signature",
    "new_signature",
    "password_file",
    "token_url",
    "auth_type",
    "passenger",
    "keyboard",
  ];
  for (const key of secret) {
    await t.step(`"${key}" is secret`, () => assert(redactor.isSecretKey(key)));
  }
  for (const key of plain) {
    await t.step(`"${key}" is not`, () => assertFalse(redactor.isSecretKey(key)));
  }
});

Deno.test("redactor: under a secret key strings and numbers go, counts and booleans stay", () => {
  const redactor = new Redactor();
  const out = redactor.apply({
    password: 123456,
    credentials: { user: "al", pass: "FAKE-1", expires_in: 3600, rotated: true },
    tokens: ["FAKE-a", "FAKE-b"],
    max_tokens: 4096,
    token_count: "12",
    token_limit: "FAKE-not-a-count",
    auth: null,
  });
  assertEquals(out, {
    password: REDACTED,
    credentials: { user: REDACTED, pass: REDACTED, expires_in: 3600, rotated: true },
    tokens: [REDACTED, REDACTED],
    max_tokens: 4096,
    token_count: "12",
    token_limit: REDACTED,
    auth: null,
  });
});

Deno.test("redactor: configured keys redact any key that contains them", () => {
  const redactor = new Redactor(["pin", "license"]);
  const out = redactor.apply({
    card_pin: 1234,
    license_code: "L-1",
    items: [{ Pin: "9" }],
    path: "a",
  });
  assertEquals(out, {
    card_pin: REDACTED,
    license_code: REDACTED,
    items: [{ Pin: REDACTED }],
    path: "a",
  });
});

Deno.test("redactor: a subtree deeper than the limit is replaced whole, not returned as it is", () => {
  let deep: unknown = { note: "FAKE-deep-value" };
  for (let i = 0; i < 1000; i++) deep = i % 2 === 0 ? { child: deep } : [deep];
  const out = JSON.stringify(new Redactor().apply({ deep }));
  assertFalse(out.includes("FAKE-deep-value"));
  assertStringIncludes(out, REDACTED);
});

Deno.test("redactor: a cycle ends, and what it held stays hidden", () => {
  const looped: Record<string, unknown> = { path: "a.txt", password: "FAKE-cyclic" };
  looped.self = looped;
  const out = JSON.stringify(new Redactor().apply(looped));
  assertFalse(out.includes("FAKE-cyclic"));
  assertStringIncludes(out, '"path":"a.txt"');
});

Deno.test("redactor: past the value budget the rest is replaced, not returned as it is", () => {
  const rows = Array.from({ length: 60_000 }, (_, i) => ({ row: i, note: `FAKE-row-${i}` }));
  const out = new Redactor().apply({ rows }) as { rows: unknown[] };
  assertEquals(out.rows[0], { row: 0, note: "FAKE-row-0" });
  assertEquals(out.rows.at(-1), REDACTED);
  assertFalse(JSON.stringify(out).includes("FAKE-row-59999"));
});

Deno.test("redactor: the input is left alone and __proto__ stays an own key", () => {
  const args = JSON.parse(
    '{"__proto__":{"password":"FAKE-proto"},"headers":{"Authorization":"Bearer FAKEx0x0x0x0"}}',
  );
  const before = structuredClone(args);
  const out = new Redactor().apply(args) as Record<string, unknown>;
  assertEquals(args, before);
  assertEquals(Object.getPrototypeOf(out), Object.prototype);
  assert(Object.hasOwn(out, "__proto__"));
  assertEquals(
    JSON.stringify(out),
    '{"__proto__":{"password":"[redacted]"},"headers":{"Authorization":"[redacted]"}}',
  );
});
