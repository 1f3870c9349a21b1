/**
 * IP addresses and ranges, and which of them are public: what the egress
 * policy (`egress.ts`) checks every resolved address against, and what the
 * network worker's Deno `--allow-net` list is made of.
 *
 * An address is kept as a number (32 bits for IPv4, 128 for IPv6). Hosts in
 * URLs arrive already normalised by the WHATWG URL parser (`0x7f.1`,
 * `2130706433` and `0177.0.0.1` are all `127.0.0.1` there); this module
 * parses only the canonical forms, strictly.
 *
 * @module
 */

/** An IP address. */
export interface IpAddress {
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** Its bits, as a number. */
  readonly value: bigint;
}

/** A range of addresses: an address and how many leading bits are fixed. */
export interface IpRange {
  /** The family. */
  readonly family: 4 | 6;
  /** The first address's bits. */
  readonly base: bigint;
  /** The prefix length (0-32 or 0-128). */
  readonly bits: number;
}

/** A range that is not public, and what it is. */
interface Special {
  readonly range: IpRange;
  readonly kind: string;
}

const WIDTH = { 4: 32, 6: 128 } as const;

/** IPv4-mapped IPv6 addresses (`::ffff:0:0/96`): the IPv4 address they carry decides. */
const MAPPED_V4: IpRange = { family: 6, base: 0xffffn << 32n, bits: 96 };

/**
 * Parse a dotted-quad IPv4 address or an IPv6 address (with or without
 * brackets, no zone).
 *
 * @param text The address.
 * @returns The address, or `undefined` when it is none.
 */
export function parseAddress(text: string): IpAddress | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return parseV4(bare) ?? parseV6(bare);
}

function parseV4(text: string): IpAddress | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^(?:0|[1-9]\d{0,2})$/.test(part))) {
    return undefined;
  }
  let value = 0n;
  for (const part of parts) {
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return { family: 4, value };
}

function parseV6(text: string): IpAddress | undefined {
  if (!/^[0-9a-fA-F:.]{2,45}$/.test(text)) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const last = (tail.length > 0 ? tail : head).at(-1);
  const words: number[] = [];
  const push = (list: string[]) => {
    for (const group of list) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return false;
      words.push(parseInt(group, 16));
    }
    return true;
  };
  // An embedded IPv4 address (`::ffff:127.0.0.1`) is the last two groups of the whole text:
  // the tail's last, or the head's when there is no "::" (never before a "::").
  const endsText = halves.length === 1 || tail.length > 0;
  const v4 = last?.includes(".") && endsText ? parseV4(last) : undefined;
  if (last?.includes(".") && !v4) return undefined;
  if (v4) (tail.length > 0 ? tail : head).pop();
  const wanted = v4 ? 6 : 8;
  if (!push(head)) return undefined;
  const filled = words.length;
  if (!push(tail)) return undefined;
  const missing = wanted - words.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  words.splice(filled, 0, ...new Array<number>(missing).fill(0));
  let value = 0n;
  for (const word of words) value = (value << 16n) | BigInt(word);
  if (v4) value = (value << 32n) | v4.value;
  return { family: 6, value };
}

/**
 * Parse a range: `10.0.0.0/8`, `fc00::/7`, or one address (all its bits).
 *
 * @param text The range.
 * @returns The range, or `undefined` when it is none.
 */
export function parseRange(text: string): IpRange | undefined {
  const slash = text.indexOf("/");
  const address = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (!address) return undefined;
  const width = WIDTH[address.family];
  const bitsText = slash < 0 ? String(width) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > width) return undefined;
  const bits = Number(bitsText);
  // An IPv4-mapped range is the IPv4 range it maps (addresses are judged unmapped).
  if (address.family === 6 && bits >= 96 && rangeHolds(MAPPED_V4, address)) {
    const v4 = address.value & 0xffffffffn;
    return { family: 4, base: v4 & mask(32, bits - 96), bits: bits - 96 };
  }
  return { family: address.family, base: address.value & mask(width, bits), bits };
}

function mask(width: number, bits: number): bigint {
  return ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - bits)) - 1n);
}

/**
 * Whether a range holds an address.
 *
 * @param range The range.
 * @param address The address.
 * @returns True when the families match and the fixed bits are the same.
 */
export function rangeHolds(range: IpRange, address: IpAddress): boolean {
  return range.family === address.family &&
    (address.value & mask(WIDTH[range.family], range.bits)) === range.base;
}

/**
 * An address as text: dotted quad, or IPv6 in its shortest form.
 *
 * @param address The address.
 * @returns The text (IPv6 without brackets).
 */
export function formatAddress(address: IpAddress): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 255n)).join(".");
  }
  const words = [...Array(8).keys()].map((i) =>
    Number((address.value >> BigInt(112 - 16 * i)) & 0xffffn)
  );
  // The longest run of two or more zero words becomes "::".
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((word) => word.toString(16));
  if (best.at < 0) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.length).join(":")}`;
}

/**
 * An address as the host part of `host:port` (Deno's permission lists, DNS
 * servers): IPv6 in brackets.
 *
 * @param address The address.
 * @returns `127.0.0.1`, `[::1]`.
 */
export function addressHost(address: IpAddress): string {
  const text = formatAddress(address);
  return address.family === 6 ? `[${text}]` : text;
}

/**
 * A range as text (`10.0.0.0/8`, `2000::/3`).
 *
 * @param range The range.
 * @returns The text.
 */
export function formatRange(range: IpRange): string {
  return `${formatAddress({ family: range.family, value: range.base })}/${range.bits}`;
}

function special(text: string, kind: string): Special {
  return { range: parseRange(text)!, kind };
}

/** IPv4 ranges that are not public (IANA's special-purpose registry), each with what it is. */
const SPECIAL_V4: readonly Special[] = [
  special("0.0.0.0/8", "unspecified"),
  special("10.0.0.0/8", "private"),
  special("100.64.0.0/10", "shared (CGNAT)"),
  special("127.0.0.0/8", "loopback"),
  special("169.254.0.0/16", "link-local (cloud metadata)"),
  special("172.16.0.0/12", "private"),
  special("192.0.0.0/24", "reserved"),
  special("192.0.2.0/24", "documentation"),
  special("192.88.99.0/24", "reserved"),
  special("192.168.0.0/16", "private"),
  special("198.18.0.0/15", "benchmarking"),
  special("198.51.100.0/24", "documentation"),
  special("203.0.113.0/24", "documentation"),
  // Public on paper, but inside Azure the WireServer (the VM agent's metadata and keys).
  special("168.63.129.16/32", "cloud metadata (Azure WireServer)"),
  special("224.0.0.0/4", "multicast"),
  special("240.0.0.0/4", "reserved"),
];

/** IPv6 ranges that are not public, inside the global unicast block or around it. */
const SPECIAL_V6: readonly Special[] = [
  special("::/128", "unspecified"),
  special("::1/128", "loopback"),
  special("64:ff9b::/96", "NAT64"),
  special("64:ff9b:1::/48", "NAT64"),
  special("100::/64", "discard"),
  special("2001::/23", "reserved"),
  special("2001:db8::/32", "documentation"),
  special("2002::/16", "6to4"),
  special("3fff::/20", "documentation"),
  special("fc00::/7", "private (unique local)"),
  special("fe80::/10", "link-local"),
  special("fec0::/10", "site-local"),
  special("ff00::/8", "multicast"),
];

/** The only IPv6 block with public addresses. */
const GLOBAL_V6 = parseRange("2000::/3")!;

/**
 * The IPv4 address an IPv4-mapped IPv6 address carries.
 *
 * @param address An address.
 * @returns The IPv4 address it stands for, or the address itself.
 */
export function unmapped(address: IpAddress): IpAddress {
  return rangeHolds(MAPPED_V4, address)
    ? { family: 4, value: address.value & 0xffffffffn }
    : address;
}

/**
 * What kind of non-public address this is, or `null` for a public one.
 *
 * @param address The address (an IPv4-mapped one is judged by its IPv4 address).
 * @returns `loopback`, `private`, `link-local (cloud metadata)`, … or null.
 */
export function nonPublicKind(address: IpAddress): string | null {
  const plain = unmapped(address);
  const specials = plain.family === 4 ? SPECIAL_V4 : SPECIAL_V6;
  const found = specials.find((entry) => rangeHolds(entry.range, plain));
  if (found) return found.kind;
  if (plain.family === 6 && !rangeHolds(GLOBAL_V6, plain)) return "reserved";
  return null;
}

/**
 * The public address space as ranges, for Deno's `--allow-net`: every IPv4
 * range between the special ones (the fewest aligned blocks that cover
 * them). Deno 2.9's `--allow-net` takes IPv4 ranges only (`[2000::]/3` is
 * refused), so public IPv6 addresses are not in it: a host is reached over
 * IPv4, and an IPv6-only one is refused by Deno (the policy's own check
 * would let it through).
 *
 * @returns The ranges as text.
 */
export function publicRanges(): string[] {
  const ranges: string[] = [];
  let next = 0n;
  const sorted = [...SPECIAL_V4].sort((a, b) => (a.range.base < b.range.base ? -1 : 1));
  for (const { range } of sorted) {
    ranges.push(...blocksBetween(next, range.base));
    const end = range.base + (1n << BigInt(32 - range.bits));
    if (end > next) next = end;
  }
  ranges.push(...blocksBetween(next, 1n << 32n));
  return ranges;
}

/** The fewest aligned IPv4 blocks that cover [start, end). */
function blocksBetween(start: bigint, end: bigint): string[] {
  const blocks: string[] = [];
  let at = start;
  while (at < end) {
    let size = 32;
    while (size > 0) {
      const block = 1n << BigInt(33 - size);
      if (at % block !== 0n || at + block > end) break;
      size--;
    }
    blocks.push(formatRange({ family: 4, base: at, bits: size }));
    at += 1n << BigInt(32 - size);
  }
  return blocks;
}
