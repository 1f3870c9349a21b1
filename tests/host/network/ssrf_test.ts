/**
 * Server-side request forgery, through the launch users run: with the
 * default policy (only public addresses), every way of naming loopback,
 * private, link-local and other non-public addresses is refused with
 * `net_denied` — literal addresses in their odd spellings, names that
 * resolve to them (through a DNS server the test controls), and redirects
 * into them from a host that is allowed — and the fixture site behind them
 * records no request.
 */

import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { launchHost, resultText } from "../../_mcp.ts";
import { dnsServer, fixtureSite, launchWeb } from "./_web.ts";
import type { CallToolResult } from "@modelcontextprotocol/client";

/** Names the test's DNS server resolves. */
const TABLE = {
  "evil.example": "127.0.0.1",
  "metadata.example": "169.254.169.254",
  "intranet.example": "10.1.2.3",
  "news.example": "127.0.0.1",
};

Deno.test("the default policy refuses every non-public address, however it is spelled", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  await using dns = await dnsServer(TABLE);
  // Only the DNS server is configured: the policy is the default one.
  await using web = await launchWeb(root.path, { net: { nameServer: dns.address } });
  const port = site.port;
  const urls = [
    `http://127.0.0.1:${port}/secret`,
    `http://localhost:${port}/secret`,
    `http://sub.localhost:${port}/secret`,
    `http://[::1]:${port}/secret`,
    `http://0.0.0.0:${port}/secret`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://2130706433:${port}/secret`, // decimal
    `http://0177.0.0.1:${port}/secret`, // octal
    `http://0x7f000001:${port}/secret`, // hex
    `http://0x7f.0.0.1:${port}/secret`, // hex first octet
    `http://127.1:${port}/secret`, // short form
    `http://[::ffff:127.0.0.1]:${port}/secret`, // IPv4-mapped IPv6
    `http://[::]:${port}/secret`,
    `http://evil.example:${port}/secret`, // a name that resolves to 127.0.0.1
    `http://EVIL.example.:${port}/secret`, // the same, another case, a trailing dot
    `http://metadata.example/latest/meta-data/`,
    `http://intranet.example/`,
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[fd00::1]/",
    "http://[fe80::1]/",
    "https://[ff02::1]/",
  ];
  for (const url of urls) {
    const result = await web.host.call("fetch_url", { url });
    assert(result.isError, `${url} was fetched`);
    assertMatch(resultText(result as CallToolResult), /^net_denied: /, url);
  }
  assertEquals(site.requests, [], "the fixture site got no request");
  // The names were resolved (by the test's server) and refused on their addresses.
  assert(dns.asked.includes("evil.example"), dns.asked.join(", "));
  assert(dns.asked.includes("metadata.example"), dns.asked.join(", "));
  assert(!dns.asked.some((name) => name.endsWith("localhost")), "localhost is never looked up");
  const refused = await web.host.call("fetch_url", { url: `http://evil.example:${port}/secret` });
  assertMatch(
    resultText(refused as CallToolResult),
    /evil\.example \(127\.0\.0\.1\) is a loopback address/,
  );
});

Deno.test("a redirect from an allowed host into a non-public address is refused", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  await using redirector = fixtureSite();
  await using dns = await dnsServer(TABLE);
  // news.example resolves to 127.0.0.1, which is unlocked on the redirector's port only.
  await using web = await launchWeb(root.path, {
    net: { nameServer: dns.address, allow: [`127.0.0.1:${redirector.port}`] },
  });
  const from = `http://news.example:${redirector.port}`;
  const ok = await web.host.call("fetch_url", { url: `${from}/data.json` });
  assert(!ok.isError, resultText(ok as CallToolResult));
  const targets = [
    `http://127.0.0.1:${site.port}/secret`,
    `http://evil.example:${site.port}/secret`,
    `http://localhost:${site.port}/secret`,
    "http://169.254.169.254/latest/meta-data/",
    `http://0x7f000001:${site.port}/secret`,
    "file:///etc/passwd",
  ];
  for (const target of targets) {
    const url = `${from}/redirect?to=${encodeURIComponent(target)}`;
    const result = await web.host.call("fetch_url", { url });
    assert(result.isError, `${target} was fetched`);
    assertMatch(resultText(result as CallToolResult), /^net_denied: /, target);
  }
  assertEquals(site.requests, [], "the fixture site got no request");
  assertEquals(
    redirector.requests.filter((path) => path.startsWith("/redirect")).length,
    targets.length,
    "each redirect was asked for, and nothing after it",
  );
});

Deno.test("deny and a list of names hold, however the host is spelled", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  await using dns = await dnsServer(TABLE);
  await using web = await launchWeb(root.path, {
    net: {
      nameServer: dns.address,
      allow: ["*.example", `127.0.0.1:${site.port}`],
      deny: ["blocked.example", "*.blocked.example", `127.0.0.1:${site.port}`],
    },
  });
  const denied = [
    "http://blocked.example/",
    "http://blocked.example../",
    "http://BLOCKED.example./",
    "http://x.blocked.example../",
    site.url("/secret"), // unlocked by allow, and denied: deny wins
  ];
  for (const url of denied) {
    const result = await web.host.call("fetch_url", { url });
    assert(result.isError, url);
    assertMatch(
      resultText(result as CallToolResult),
      /^net_denied: .*matches net\.deny entry/,
      url,
    );
  }
  const unlisted = await web.host.call("fetch_url", { url: "http://example.org/" });
  assertMatch(resultText(unlisted as CallToolResult), /^net_denied: .*is not in net\.allow/);
  // Refused by name: never looked up.
  assert(!dns.asked.some((name) => name.includes("blocked")), dns.asked.join(", "));
  assertEquals(site.requests, []);
});

Deno.test("addresses in a config inside the root do not unlock anything", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  // A cloned repository's toolhost.json: allow would unlock loopback if it counted.
  await Deno.writeTextFile(
    `${root.path}/toolhost.json`,
    JSON.stringify({ net: { allow: [`127.0.0.1:${site.port}`] } }),
  );
  await using host = await launchHost({ roots: [root.path] });
  const result = await host.call("fetch_url", { url: site.url("/secret") });
  assert(result.isError);
  assertMatch(resultText(result as CallToolResult), /^net_denied: .*is a loopback address/);
  assertEquals(site.requests, []);
  assertMatch(host.session.stderr(), /is not trusted.*ignored "net\.allow \(addresses\)"/);
});
