/**
 * IP address parsing and classification for the outbound-request guard (lib/net/url-guard.ts).
 * Parsing is deliberately lenient, the way resolvers and URL parsers are: `2130706433`,
 * `0x7f.1`, `0177.0.0.1` and `127.1` are all 127.0.0.1, and `::ffff:7f00:1` embeds it too.
 * A guard that only recognised the canonical spelling would let the others through.
 */
export type Ip = { family: 4 | 6; bytes: Uint8Array };

/** One part of an inet_aton-style IPv4 address: decimal, octal (leading 0) or hex (0x). */
function ipv4Part(part: string): number | null {
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(digits)) {
    digits = digits.slice(2);
    radix = 16;
    if (digits === "") return 0; // WHATWG URL reads a bare "0x" as zero
  } else if (digits.length > 1 && digits.startsWith("0")) {
    digits = digits.slice(1);
    radix = 8;
  }
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  const n = parseInt(digits, radix);
  return n <= 0xffffffff ? n : null;
}

/** IPv4 in any of the 1–4 part forms (the last part fills the remaining bytes), or null. */
export function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop(); // a trailing dot is allowed
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => p === "")) return null;
  const nums = parts.map(ipv4Part);
  if (nums.some((n) => n === null)) return null;
  const last = nums.pop() as number;
  if (nums.some((n) => (n as number) > 255)) return null;
  if (last >= 256 ** (5 - parts.length)) return null;
  let value = last;
  nums.forEach((n, i) => (value += (n as number) * 256 ** (3 - i)));
  return new Uint8Array([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

/** IPv6 (brackets and a zone id allowed, dotted IPv4 tail allowed), or null. */
export function parseIpv6(text: string): Uint8Array | null {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const parts = half.split(":");
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i === parts.length - 1 && p.includes(".")) {
        const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(p) ? parseIpv4(p) : null;
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(p)) out.push(parseInt(p, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return null;
  const all = [...head, ...new Array<number>(fill).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 255;
  });
  return bytes;
}

export function parseIp(text: string): Ip | null {
  const v6 = parseIpv6(text);
  if (v6) return { family: 6, bytes: v6 };
  const v4 = parseIpv4(text);
  return v4 ? { family: 4, bytes: v4 } : null;
}

export function sameIp(a: Ip, b: Ip): boolean {
  return a.family === b.family && a.bytes.every((x, i) => x === b.bytes[i]);
}

type Range = { prefix: Uint8Array; bits: number; label: string };

function inRange(bytes: Uint8Array, r: Range): boolean {
  for (let bit = 0; bit < r.bits; bit += 8) {
    const take = Math.min(8, r.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8] & mask) !== (r.prefix[bit / 8] & mask)) return false;
  }
  return true;
}

const v4 = (cidr: string, label: string): Range => {
  const [addr, bits] = cidr.split("/");
  return { prefix: parseIpv4(addr) as Uint8Array, bits: Number(bits), label };
};
const v6 = (cidr: string, label: string): Range => {
  const [addr, bits] = cidr.split("/");
  return { prefix: parseIpv6(addr) as Uint8Array, bits: Number(bits), label };
};

/** IPv4 ranges that are not the public internet (IANA special-purpose registry). */
const V4_SPECIAL: Range[] = [
  v4("0.0.0.0/8", "this network"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier-grade NAT"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"), // includes cloud metadata endpoints (169.254.169.254)
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "IETF protocol assignments"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "6to4 relay"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"), // includes broadcast 255.255.255.255
];

/** IPv6 prefixes that carry an IPv4 address a packet ends up at: judged by that address. */
const V6_EMBEDDING: { range: Range; at: number }[] = [
  { range: v6("::ffff:0:0/96", "IPv4-mapped"), at: 12 },
  { range: v6("::/96", "IPv4-compatible"), at: 12 },
  { range: v6("64:ff9b::/96", "NAT64"), at: 12 },
  { range: v6("2002::/16", "6to4"), at: 2 },
];

/** Inside global unicast (2000::/3), the parts that are not the public internet. */
const V6_SPECIAL_GLOBAL: Range[] = [
  v6("2001::/23", "IETF protocol assignments"), // Teredo, benchmarking, ORCHID
  v6("2001:db8::/32", "documentation"),
  v6("3fff::/20", "documentation"),
];

const V6_OTHER: Range[] = [
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("64:ff9b:1::/48", "NAT64 local use"),
  v6("100::/64", "discard"),
  v6("fc00::/7", "unique local"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "site-local"),
  v6("ff00::/8", "multicast"),
];
const GLOBAL_UNICAST = v6("2000::/3", "global unicast");

/**
 * Why an address is not a public unicast address (a short label such as "loopback"), or null
 * when it is public. Addresses embedding IPv4 are judged by the IPv4 address they reach.
 */
export function nonPublicRange(ip: Ip): string | null {
  if (ip.family === 4) return V4_SPECIAL.find((r) => inRange(ip.bytes, r))?.label ?? null;
  const special = V6_OTHER.find((r) => inRange(ip.bytes, r));
  if (special) return special.label;
  for (const { range, at } of V6_EMBEDDING) {
    if (inRange(ip.bytes, range)) {
      const inner = nonPublicRange({ family: 4, bytes: ip.bytes.slice(at, at + 4) });
      return inner ? `${inner} (${range.label})` : null;
    }
  }
  if (!inRange(ip.bytes, GLOBAL_UNICAST)) return "reserved";
  return V6_SPECIAL_GLOBAL.find((r) => inRange(ip.bytes, r))?.label ?? null;
}
