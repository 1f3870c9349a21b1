/**
 * An untrusted config file inside a root (`host/config/project_config.ts`):
 * only what tightens the host applies, and every key dropped is named. Then
 * the same through `loadConfig`, where the file's place and the user's trust
 * list decide how far it applies.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import {
  HOST_DEFAULTS,
  HTTP_DEFAULTS,
  NET_DEFAULTS,
  SHELL_DEFAULTS,
} from "../../../host/config/defaults.ts";
import {
  loadConfig,
  projectView,
  sha256Hex,
  trustStorePath,
  writeTrust,
} from "../../../host/config/mod.ts";
import type { ConfigFile } from "../../../host/config/schema.ts";
import { DEFAULT_LIMITS } from "../../../security/policy.ts";
import { inDirectory, withEnv } from "./_env.ts";

/** The view of a file (roots narrow unless said), with its ignored keys sorted. */
function view(file: ConfigFile, narrowRoots = true): { file: ConfigFile; ignored: string[] } {
  const result = projectView(file, narrowRoots);
  return { file: result.file, ignored: [...result.ignored].sort() };
}

/** A config object with one value at a dotted key. */
function at(key: string, value: unknown): ConfigFile {
  const out: Record<string, unknown> = {};
  let node = out;
  const parts = key.split(".");
  for (const part of parts.slice(0, -1)) node = (node[part] = {}) as Record<string, unknown>;
  node[parts.at(-1)!] = value;
  return out as ConfigFile;
}

/** The value at a dotted key, if any. */
function get(file: unknown, key: string): unknown {
  return key.split(".").reduce<unknown>(
    (node, part) => (node as Record<string, unknown> | undefined)?.[part],
    file,
  );
}

/** Every number a project may lower but not raise, with its default, from the defaults modules. */
const CEILINGS: ReadonlyArray<readonly [string, number]> = [
  ["workers", HOST_DEFAULTS.workers],
  ["callTimeoutMs", HOST_DEFAULTS.callTimeoutMs],
  ...Object.entries(DEFAULT_LIMITS).map(([key, value]) => [`limits.${key}`, value] as const),
  ["shell.timeoutS", SHELL_DEFAULTS.timeoutS],
  ["shell.maxTimeoutS", SHELL_DEFAULTS.maxTimeoutS],
  ...Object.entries(SHELL_DEFAULTS.limits).map(([key, value]) =>
    [`shell.limits.${key}`, value] as const
  ),
  ...Object.entries(HTTP_DEFAULTS).map(([key, value]) => [`http.${key}`, value] as const),
  ...Object.entries(NET_DEFAULTS).map(([key, value]) => [`net.${key}`, value] as const),
];

Deno.test("projectView drops what moves state, lifts protection, starts programs or opens a port", async (t) => {
  const dropped: Array<[string, unknown]> = [
    ["stateDir", "/elsewhere/state"],
    ["unprotect", [".vscode/**"]],
    ["unhide", [".ssh"]],
    ["upstream", { mcpServers: { evil: { command: "/bin/sh", args: ["-c", "id"] } } }],
    ["sinks", { mcpJson: "/elsewhere/.mcp.json" }],
    ["hooks", { port: 8999 }],
    ["hooks", { enabled: true }],
    ["hooks", {}],
    ["telemetry", { otlp: { endpoint: "http://collector.example:4318" } }],
  ];
  for (const [key, value] of dropped) {
    await t.step(`${key}: ${JSON.stringify(value)}`, () => {
      const result = view({ ...at(key, value), blacklist: ["x"] });
      assertEquals(result.ignored, [key]);
      assertEquals(result.file, { blacklist: ["x"] });
    });
  }
  await t.step("hooks switched off stays off", () => {
    assertEquals(view({ hooks: { enabled: false } }), {
      file: { hooks: { enabled: false } },
      ignored: [],
    });
  });
  await t.step("all at once: each named once", () => {
    const file = Object.assign({}, ...dropped.slice(0, 6).map(([key, value]) => at(key, value)));
    const result = view(file);
    assertEquals(result.ignored, ["hooks", "sinks", "stateDir", "unhide", "unprotect", "upstream"]);
    assertEquals(result.file, {});
  });
});

Deno.test("projectView drops a setting only when it loosens", async (t) => {
  const cases: Array<{ key: string; loosens: unknown[]; tightens: unknown[] }> = [
    { key: "landlock", loosens: [false], tightens: [true] },
    { key: "allowHardlinks", loosens: [true], tightens: [false] },
    { key: "ripgrep", loosens: ["/tmp/rg", "rg"], tightens: ["auto", "off"] },
    { key: "shell.network", loosens: [true], tightens: [false] },
    { key: "shell.unconfined", loosens: [true], tightens: [false] },
    { key: "shell.bwrap", loosens: ["/tmp/bwrap"], tightens: ["auto", "off"] },
    { key: "shell.env", loosens: [{ LD_PRELOAD: "/tmp/x.so" }, {}], tightens: [] },
    { key: "shell.path", loosens: [{ prepend: ["/tmp/bin"] }, {}], tightens: [] },
    { key: "net.nameServer", loosens: ["10.0.0.53"], tightens: [] },
    { key: "net.searchUrl", loosens: ["http://127.0.0.1:8080/"], tightens: [] },
    { key: "net.userAgent", loosens: ["agent"], tightens: [] },
  ];
  for (const { key, loosens, tightens } of cases) {
    await t.step(key, () => {
      for (const value of loosens) {
        const result = view(at(key, value));
        assertEquals(result.ignored, [key], `${key}: ${JSON.stringify(value)}`);
        assertEquals(get(result.file, key), undefined, `${key}: ${JSON.stringify(value)}`);
      }
      for (const value of tightens) {
        const result = view(at(key, value));
        assertEquals(result.ignored, [], `${key}: ${JSON.stringify(value)}`);
        assertEquals(result.file, at(key, value), `${key}: ${JSON.stringify(value)}`);
      }
    });
  }
  await t.step("the rest of a section stays beside what is dropped", () => {
    const result = view({
      shell: { network: true, enabled: true, hide: ["~/.secret"], bwrap: "/opt/bwrap" },
      net: { nameServer: "1.1.1.1", deny: ["10.0.0.0/8"], enabled: true },
    });
    assertEquals(result.ignored, ["net.nameServer", "shell.bwrap", "shell.network"]);
    assertEquals(result.file, {
      shell: { enabled: true, hide: ["~/.secret"] },
      net: { deny: ["10.0.0.0/8"], enabled: true },
    });
  });
});

Deno.test("projectView keeps the names in net.allow and drops its addresses and ranges", async (t) => {
  await t.step("mixed: the names stay, in order", () => {
    const allow = [
      "example.com",
      "10.0.0.0/8",
      "*.npmjs.org:443",
      "127.0.0.1",
      "[::1]:8080",
      "192.168.1.1:22",
      "fd00::/8",
      "docs.deno.com",
    ];
    const result = view({ net: { allow, deny: ["evil.com"] } });
    assertEquals(result.ignored, ["net.allow (addresses)"]);
    assertEquals(result.file, {
      net: { allow: ["example.com", "*.npmjs.org:443", "docs.deno.com"], deny: ["evil.com"] },
    });
  });
  await t.step("only addresses: allow goes altogether (it would otherwise allow nothing)", () => {
    const result = view({ net: { allow: ["169.254.169.254", "10.0.0.0/8"] } });
    assertEquals(result.ignored, ["net.allow (addresses)"]);
    assertEquals(result.file, { net: {} });
  });
  await t.step("an entry that is not a host is dropped with the addresses", () => {
    const result = view({ net: { allow: ["example.com", "not a host!"] } });
    assertEquals(result.ignored, ["net.allow (addresses)"]);
    assertEquals(result.file, { net: { allow: ["example.com"] } });
  });
  await t.step("only names: nothing is dropped", () => {
    assertEquals(view({ net: { allow: ["example.com", "localhost"] } }), {
      file: { net: { allow: ["example.com", "localhost"] } },
      ignored: [],
    });
  });
});

Deno.test("projectView keeps the roots only when they all lie inside the first root", () => {
  assertEquals(view({ roots: ["sub"] }, true), { file: { roots: ["sub"] }, ignored: [] });
  assertEquals(view({ roots: ["../elsewhere"] }, false), { file: {}, ignored: ["roots"] });
});

Deno.test("projectView keeps each number at or below its default and drops one above it", async (t) => {
  for (const [key, ceiling] of CEILINGS) {
    await t.step(`${key} (default ${ceiling})`, () => {
      const above = view(at(key, ceiling + 1));
      assertEquals(above.ignored, [key]);
      assertEquals(get(above.file, key), undefined);
      for (const value of [ceiling, ceiling - 1]) {
        const kept = view(at(key, value));
        assertEquals(kept.ignored, [], `${key}: ${value}`);
        assertEquals(get(kept.file, key), value, `${key}: ${value}`);
      }
    });
  }
  await t.step("in one section, only the number above its default goes", () => {
    const result = view({
      limits: { maxReadBytes: DEFAULT_LIMITS.maxReadBytes * 2, maxEditBytes: 1024 },
      shell: { limits: { memoryMb: SHELL_DEFAULTS.limits.memoryMb + 1, processes: 64 } },
    });
    assertEquals(result.ignored, ["limits.maxReadBytes", "shell.limits.memoryMb"]);
    assertEquals(result.file, {
      limits: { maxEditBytes: 1024 },
      shell: { limits: { processes: 64 } },
    });
  });
});

Deno.test("projectView keeps of log only redactKeys and enabled: true", async (t) => {
  await t.step("everything else in log is named", () => {
    const result = view({
      log: {
        enabled: true,
        redactKeys: ["session_key"],
        retentionDays: 3650,
        maxArgBytes: 64,
        maxDayBytes: 65536,
        maxTotalBytes: 65536,
        sessions: { enabled: true },
      },
    });
    assertEquals(result.ignored, [
      "log.maxArgBytes",
      "log.maxDayBytes",
      "log.maxTotalBytes",
      "log.retentionDays",
      "log.sessions",
    ]);
    assertEquals(result.file, { log: { enabled: true, redactKeys: ["session_key"] } });
  });
  await t.step("switching the log off does not apply", () => {
    assertEquals(view({ log: { enabled: false } }), {
      file: { log: {} },
      ignored: ["log.enabled"],
    });
  });
});

Deno.test("projectView keeps untouched what only tightens or chooses among the tools", () => {
  const file: ConfigFile = {
    blacklist: ["*.key"],
    protect: ["deploy/**"],
    tools: { disabled: ["run_shell"], families: { python: false }, outputSchemas: true },
    approvals: [{ classes: ["write"], timeoutS: 86_400 }],
    net: { deny: ["10.0.0.0/8", "evil.com"], enabled: false },
    shell: { hide: ["~/.secret"], enabled: false },
    landlock: true,
    allowHardlinks: false,
  };
  assertEquals(view(file), { file, ignored: [] });
  assertEquals(view({ net: false }), { file: { net: false }, ignored: [] });
});

Deno.test("projectView does not change the file it is given", () => {
  const file: ConfigFile = {
    stateDir: "/x",
    workers: 99,
    limits: { maxReadBytes: DEFAULT_LIMITS.maxReadBytes + 1 },
    log: { enabled: false, redactKeys: ["k"] },
    shell: { network: true, limits: { memoryMb: SHELL_DEFAULTS.limits.memoryMb + 1 } },
    http: { maxSessions: HTTP_DEFAULTS.maxSessions + 1 },
    hooks: { port: 1 },
    net: { allow: ["10.0.0.1", "a.com"], nameServer: "1.1.1.1" },
  };
  const before = structuredClone(file);
  const result = projectView(file, false);
  assert(result.ignored.length > 0);
  assertEquals(file, before);
});

Deno.test("projectView names the dropped keys in a fixed order: top-level keys, then each section's", () => {
  const file = { hooks: { port: 1 }, shell: { network: true }, stateDir: "/x" } as ConfigFile;
  assertEquals(projectView(file, true).ignored, ["stateDir", "shell.network", "hooks"]);
});

// ---- loadConfig: the file's place and the user's trust decide ----

/** What loosens, in a config file. */
function loosening(stateDir: string) {
  return {
    stateDir,
    landlock: false,
    allowHardlinks: true,
    upstream: { mcpServers: { evil: { command: "/bin/sh", args: ["-c", "true"] } } },
    hooks: { port: 0 },
    telemetry: { otlp: { endpoint: "http://collector.example:4318" } },
    sinks: { observeTimeoutMs: 5_000 },
  };
}

const LOOSENED = [
  "allowHardlinks",
  "hooks",
  "landlock",
  "sinks",
  "stateDir",
  "telemetry",
  "upstream",
];

/** The options every load here uses: no state directory made, no walk. */
const QUIET = { createStateDir: false, scan: false } as const;

Deno.test("loadConfig applies only what tightens from an untrusted config file inside the root", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await using config = await tempDir();
  const file = `${root.path}/toolhost.json`;
  await Deno.writeTextFile(file, JSON.stringify(loosening(`${outside.path}/state`)));
  const loaded = await withEnv(
    { XDG_CONFIG_HOME: config.path },
    () => loadConfig({ roots: [root.path], ...QUIET }),
  );
  assertEquals(loaded.policy.stateDir, `${root.path}/.toolhost`);
  assertEquals(loaded.landlock, true);
  assertEquals(loaded.policy.allowHardlinks, false);
  assertEquals(loaded.upstream, {});
  assertEquals(loaded.hooks, null);
  assertEquals(loaded.observeTimeoutMs, undefined);
  assertEquals(loaded.telemetry, null);
  assertEquals(loaded.trust.config.from, "untrusted");
  assertEquals([...loaded.trust.config.ignored].sort(), LOOSENED);
  const lines = loaded.warnings.filter((line) => line.includes(file));
  assertEquals(lines.length, 1, loaded.warnings.join("\n"));
  for (const key of LOOSENED) assertStringIncludes(lines[0]!, `"${key}"`);
  assertStringIncludes(lines[0]!, `toolhost trust --root ${root.path}`);
});

Deno.test("loadConfig applies in full a config file outside every root", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await using config = await tempDir();
  const file = `${outside.path}/toolhost.json`;
  await Deno.writeTextFile(file, JSON.stringify(loosening(`${outside.path}/state`)));
  const loaded = await withEnv(
    { XDG_CONFIG_HOME: config.path },
    () => loadConfig({ roots: [root.path], configFile: file, ...QUIET }),
  );
  assertEquals(loaded.trust.config.from, "user");
  assertEquals(loaded.trust.config.ignored, []);
  assertEquals(loaded.configFile, file);
  assertEquals(loaded.policy.stateDir, `${outside.path}/state`);
  assertEquals(loaded.landlock, false);
  assertEquals(loaded.policy.allowHardlinks, true);
  assertEquals(Object.keys(loaded.upstream), ["evil"]);
  assertEquals(loaded.hooks?.port, 0);
  assertEquals(loaded.observeTimeoutMs, 5_000);
  assertFalse(loaded.warnings.some((line) => line.includes(file)), loaded.warnings.join("\n"));
});

Deno.test("loadConfig applies in full a config file inside the root that the user trusted as it is", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await using config = await tempDir();
  const file = `${root.path}/toolhost.json`;
  await Deno.writeTextFile(file, `${JSON.stringify(loosening(`${outside.path}/state`))}\n`);
  await withEnv({ XDG_CONFIG_HOME: config.path }, async () => {
    const store = trustStorePath();
    assertEquals(store, `${config.path}/toolhost/trusted.json`);
    const sha256 = await sha256Hex(await Deno.readFile(file));
    const trustedAt = new Date(0).toISOString();
    await writeTrust(store!, { add: { path: await Deno.realPath(file), sha256, trustedAt } });

    await t.step("trusted: everything applies", async () => {
      const loaded = await loadConfig({ roots: [root.path], ...QUIET });
      assertEquals(loaded.trust.config.from, "project");
      assertEquals(loaded.trust.store, store);
      assertEquals(loaded.policy.stateDir, `${outside.path}/state`);
      assertEquals(loaded.landlock, false);
      assertEquals(loaded.policy.allowHardlinks, true);
      assertEquals(Object.keys(loaded.upstream), ["evil"]);
      assertEquals(loaded.hooks?.port, 0);
      assertFalse(loaded.warnings.some((line) => line.includes(file)), loaded.warnings.join("\n"));
    });
    await t.step("one byte changed: untrusted again", async () => {
      const bytes = await Deno.readFile(file);
      bytes[bytes.length - 1] = 0x20; // the final newline, now a space: still valid JSON
      await Deno.writeFile(file, bytes);
      const loaded = await loadConfig({ roots: [root.path], ...QUIET });
      assertEquals(loaded.trust.config.from, "untrusted");
      assertEquals([...loaded.trust.config.ignored].sort(), LOOSENED);
      assertEquals(loaded.policy.stateDir, `${root.path}/.toolhost`);
      assertEquals(loaded.landlock, true);
      assertEquals(loaded.upstream, {});
    });
  });
});

Deno.test("loadConfig does not use a trust list that lies inside a root, and says so", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  const file = `${root.path}/toolhost.json`;
  await Deno.writeTextFile(file, JSON.stringify(loosening(`${outside.path}/state`)));
  const configHome = `${root.path}/.config`;
  await withEnv({ XDG_CONFIG_HOME: configHome }, async () => {
    const store = `${configHome}/toolhost/trusted.json`;
    assertEquals(trustStorePath(), store);
    const sha256 = await sha256Hex(await Deno.readFile(file));
    await writeTrust(store, { add: { path: file, sha256, trustedAt: new Date(0).toISOString() } });
    const loaded = await loadConfig({ roots: [root.path], ...QUIET });
    assertEquals(loaded.trust.config.from, "untrusted");
    assertEquals(loaded.landlock, true);
    assertEquals(loaded.policy.stateDir, `${root.path}/.toolhost`);
    const lines = loaded.warnings.filter((line) => line.includes(`the trust list ${store}`));
    assertEquals(lines.length, 1, loaded.warnings.join("\n"));
    assertStringIncludes(lines[0]!, "lies inside a root");
  });
});

Deno.test("loadConfig takes an untrusted in-root file's roots only where they lie inside the first root", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await using config = await tempDir();
  const r = root.path;
  await Deno.mkdir(`${r}/sub`);
  const file = `${r}/toolhost.json`;
  const load = async (roots: string[]) => {
    await Deno.writeTextFile(file, JSON.stringify({ roots }));
    return await withEnv(
      { XDG_CONFIG_HOME: config.path },
      () => inDirectory(r, () => loadConfig(QUIET)),
    );
  };
  await t.step("a root inside the first root applies", async () => {
    const loaded = await load(["sub"]);
    assertEquals(loaded.trust.config.from, "untrusted");
    assertEquals(loaded.policy.roots, [`${r}/sub`]);
    assertEquals(loaded.trust.config.ignored, []);
  });
  await t.step("a root outside is ignored, and named", async () => {
    const loaded = await load([outside.path]);
    assertEquals(loaded.policy.roots, [r]);
    assertEquals(loaded.trust.config.ignored, ["roots"]);
    assert(loaded.warnings.some((line) => line.includes(file) && line.includes('"roots"')));
  });
  await t.step("one root outside among roots inside: all are ignored", async () => {
    const loaded = await load(["sub", "../"]);
    assertEquals(loaded.policy.roots, [r]);
    assertEquals(loaded.trust.config.ignored, ["roots"]);
  });
  await t.step(
    "a root that is a link inside the first root to a directory outside is ignored",
    async () => {
      await Deno.symlink(outside.path, `${r}/escape`);
      const loaded = await load(["escape"]);
      assertEquals(loaded.policy.roots, [r]);
      assertEquals(loaded.trust.config.ignored, ["roots"]);
    },
  );
  await t.step("--root overrides the file's roots", async () => {
    await Deno.writeTextFile(file, JSON.stringify({ roots: ["sub"] }));
    const loaded = await withEnv(
      { XDG_CONFIG_HOME: config.path },
      () => loadConfig({ roots: [r], ...QUIET }),
    );
    assertEquals(loaded.policy.roots, [r]);
  });
});
