/**
 * The egress policy's pieces: addresses parsed and classified, URL hosts
 * as the WHATWG parser normalises them, allow and deny entries, and the
 * network worker's `--allow-net` list against the classification.
 */

import { assert, assertEquals } from "../_assert.ts";
import {
  formatAddress,
  nonPublicKind,
  parseAddress,
  parseRange,
  publicRanges,
  rangeHolds,
} from "../../security/addresses.ts";
import {
  addressRefusal,
  egressDenials,
  egressPermissions,
  type EgressPolicy,
  hostRefusal,
  parseHostEntry,
  urlHost,
} from "../../security/egress.ts";

Deno.test("addresses: parsed strictly, printed canonically", () => {
  const cases: Array<[string, string | undefined]> = [
    ["127.0.0.1", "127.0.0.1"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
    ["1.2.3", undefined],
    ["01.2.3.4", undefined],
    ["256.1.1.1", undefined],
    ["1:2:3:4:5:6:7:8:9", undefined],
    ["1::2:1.2.3.4", "1::2:102:304"],
    ["1.2.3.4::", undefined],
    ["a:b:1.2.3.4::", undefined],
    [":::", undefined],
    ["example.com", undefined],
  ];
  for (const [text, expected] of cases) {
    const address = parseAddress(text);
    assertEquals(address && formatAddress(address), expected, text);
  }
});

Deno.test("addresses: the non-public kinds", () => {
  const cases: Array<[string, string | null]> = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["10.9.8.7", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["fd12::1", "private (unique local)"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["fe80::1", "link-local"],
    ["100.64.0.1", "shared (CGNAT)"],
    ["224.0.0.251", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["2001:db8::1", "documentation"],
    ["168.63.129.16", "cloud metadata (Azure WireServer)"],
    ["8.8.8.8", null],
    ["172.32.0.1", null],
    ["100.128.0.1", null],
    ["2606:4700::1111", null],
    ["::ffff:8.8.8.8", null],
  ];
  for (const [text, kind] of cases) assertEquals(nonPublicKind(parseAddress(text)!), kind, text);
});

Deno.test("URL hosts: every spelling of an address comes out canonical", () => {
  const loopback = [
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f000001/",
    "http://0x7f.0.0.1/",
    "http://127.1/",
    "http://127.0.0.1./",
  ];
  for (const url of loopback) assertEquals(urlHost(new URL(url)).host, "127.0.0.1", url);
  assertEquals(urlHost(new URL("http://[::ffff:127.0.0.1]:8080/")), {
    host: "::ffff:7f00:1",
    port: 8080,
  });
  assertEquals(urlHost(new URL("https://Example.COM./x")), { host: "example.com", port: 443 });
  assertEquals(urlHost(new URL("https://evil.example../x")).host, "evil.example");
});

Deno.test("the public IPv4 ranges are exactly the addresses that are public", () => {
  const ranges = publicRanges().map((text) => parseRange(text)!);
  const inList = (text: string) => ranges.some((range) => rangeHolds(range, parseAddress(text)!));
  // Every special range's edges, and the addresses just outside them.
  const edges = [
    "0.255.255.255",
    "1.0.0.0",
    "9.255.255.255",
    "10.0.0.0",
    "10.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.64.0.0",
    "100.127.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "127.0.0.0",
    "128.0.0.0",
    "169.253.255.255",
    "169.254.0.0",
    "169.255.0.0",
    "172.15.255.255",
    "172.16.0.0",
    "172.32.0.0",
    "192.0.0.255",
    "192.0.1.0",
    "192.0.2.0",
    "192.88.99.0",
    "192.88.100.0",
    "192.167.255.255",
    "192.168.0.0",
    "192.169.0.0",
    "198.17.255.255",
    "198.18.0.0",
    "198.20.0.0",
    "203.0.113.255",
    "203.0.114.0",
    "223.255.255.255",
    "224.0.0.0",
    "255.255.255.255",
  ];
  for (const text of edges) {
    assertEquals(inList(text), nonPublicKind(parseAddress(text)!) === null, text);
  }
  // And a spread across the whole space.
  for (let value = 0n; value < 1n << 32n; value += 16_777_259n) {
    const address = { family: 4 as const, value };
    const listed = ranges.some((range) => rangeHolds(range, address));
    assertEquals(listed, nonPublicKind(address) === null, formatAddress(address));
  }
});

Deno.test("host entries: names, globs, addresses, ranges, ports", () => {
  const entry = (text: string) => parseHostEntry(text, true);
  assert(entry("*.example.com").name!.test("docs.example.com"));
  assert(!entry("*.example.com").name!.test("example.com"));
  assert(!entry("example.com").name!.test("example.com.evil.test"));
  assertEquals(entry("127.0.0.1:8080").port, 8080);
  assertEquals(entry("[::1]:8080").range?.family, 6);
  assertEquals(entry("10.0.0.0/8").range?.bits, 8);
  assertEquals(entry("docs.example.com:*").port, null);
  // An IPv4-mapped entry is the IPv4 address it maps.
  assertEquals(entry("::ffff:10.0.0.1").range, parseRange("10.0.0.1"));
  let threw = false;
  try {
    entry("fd00::/8");
  } catch (error) {
    threw = error instanceof TypeError && /IPv6 range/.test(error.message);
  }
  assert(threw, "an IPv6 range cannot be unlocked");
  for (const bad of ["http://example.com", "exa mple.com", "example.com:99999", "/etc/passwd"]) {
    threw = false;
    try {
      parseHostEntry(bad);
    } catch (error) {
      threw = error instanceof TypeError;
    }
    assert(threw, bad);
  }
});

Deno.test("the policy: deny wins, names list the only hosts, addresses unlock only from the user", () => {
  const policy = (allow: string[] | null, deny: string[] = [], unlocks = true): EgressPolicy => ({
    allow: allow && allow.map((text) => parseHostEntry(text, unlocks)),
    deny: deny.map((text) => parseHostEntry(text)),
  });
  const open = policy(null);
  const loopback = parseAddress("127.0.0.1")!;
  const publicAddress = parseAddress("93.184.215.14")!;
  assertEquals(hostRefusal(open, "example.com", 443), null);
  assertEquals(addressRefusal(open, "example.com", publicAddress, 443), null);
  assertEquals(
    addressRefusal(open, "evil.test", loopback, 80),
    "evil.test (127.0.0.1) is a loopback address",
  );
  const denying = policy(null, ["*.ads.test", "93.184.0.0/16"]);
  assert(hostRefusal(denying, "x.ads.test", 443)?.includes("net.deny"));
  assert(addressRefusal(denying, "example.com", publicAddress, 443)?.includes("net.deny"));
  const listed = policy(["docs.python.org", "*.github.com"]);
  assertEquals(hostRefusal(listed, "api.github.com", 443), null);
  assert(hostRefusal(listed, "example.com", 443)?.includes("not in net.allow"));
  assert(hostRefusal(listed, "93.184.215.14", 443)?.includes("not in net.allow"));
  // A name never unlocks: an allowed name that resolves to loopback is refused.
  assert(addressRefusal(listed, "docs.python.org", loopback, 443)?.includes("loopback"));
  const unlocking = policy(["127.0.0.1:8080"]);
  assertEquals(
    hostRefusal(unlocking, "example.com", 443),
    null,
    "addresses alone do not list hosts",
  );
  assertEquals(addressRefusal(unlocking, "127.0.0.1", loopback, 8080), null);
  assert(addressRefusal(unlocking, "127.0.0.1", loopback, 8081)?.includes("loopback"));
  const untrusted = policy(["127.0.0.1:8080"], [], false);
  assert(addressRefusal(untrusted, "127.0.0.1", loopback, 8080)?.includes("loopback"));
});

Deno.test("the network worker's --allow-net: public IPv4, what is unlocked, the DNS servers", () => {
  const allow = ["127.0.0.1:8080", "10.0.0.0/8", "[::1]:9000", "docs.example.com"];
  const list = egressPermissions(
    { allow: allow.map((text) => parseHostEntry(text, true)), deny: [] },
    ["10.255.255.53:53"],
  );
  for (
    const wanted of ["127.0.0.1:8080", "10.0.0.0/8", "[::1]:9000", "10.255.255.53:53", "1.0.0.0/8"]
  ) {
    assert(list.includes(wanted), wanted);
  }
  // No names: the worker connects to addresses only.
  assert(!list.some((item) => item.includes("example")), list.join(","));
  const locked = egressPermissions({ allow: [parseHostEntry("127.0.0.1:8080")], deny: [] }, []);
  assert(!locked.includes("127.0.0.1:8080"), "an entry that does not unlock is not granted");
});

Deno.test("the network worker's --deny-net: the deny entries Deno can hold", () => {
  const deny = [
    "93.184.215.14",
    "1.2.3.4:443",
    "203.0.0.0/16",
    "10.0.0.0/8:80",
    "[2606::1]",
    "ads.example",
  ];
  assertEquals(egressDenials({ allow: null, deny: deny.map((text) => parseHostEntry(text)) }), [
    "93.184.215.14",
    "1.2.3.4:443",
    "203.0.0.0/16",
    "[2606::1]",
  ]);
});
