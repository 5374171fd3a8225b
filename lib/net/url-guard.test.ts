import { describe, expect, it } from "vitest";
import { nonPublicRange, parseIp } from "./ip";
import { assertAddressAllowed, checkUrl, guardUrl, resolveTarget, UrlGuardError, type Resolver } from "./url-guard";

const range = (text: string) => {
  const ip = parseIp(text);
  if (!ip) throw new Error(`${text} did not parse`);
  return nonPublicRange(ip);
};

function refusal(fn: () => unknown): UrlGuardError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UrlGuardError) return err;
    throw err;
  }
  throw new Error("expected a UrlGuardError");
}

async function refusalOf(p: Promise<unknown>): Promise<UrlGuardError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof UrlGuardError)) throw new Error(`expected a UrlGuardError, got ${String(err)}`);
  return err;
}

const dnsOf =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

describe("parseIp", () => {
  it.each([
    ["127.0.0.1", [127, 0, 0, 1]],
    ["2130706433", [127, 0, 0, 1]],
    ["0x7f000001", [127, 0, 0, 1]],
    ["0x7f.1", [127, 0, 0, 1]],
    ["0177.0.0.1", [127, 0, 0, 1]],
    ["017700000001", [127, 0, 0, 1]],
    ["127.1", [127, 0, 0, 1]],
    ["127.0.1", [127, 0, 0, 1]],
    ["10.0.0.1.", [10, 0, 0, 1]],
    ["0", [0, 0, 0, 0]],
  ])("reads the IPv4 spelling %s", (text, bytes) => {
    expect(parseIp(text)).toEqual({ family: 4, bytes: new Uint8Array(bytes) });
  });

  it.each([
    ["::1", "0000:0000:0000:0000:0000:0000:0000:0001"],
    ["[::1]", "0000:0000:0000:0000:0000:0000:0000:0001"],
    ["::ffff:127.0.0.1", "0000:0000:0000:0000:0000:ffff:7f00:0001"],
    ["::ffff:7f00:1", "0000:0000:0000:0000:0000:ffff:7f00:0001"],
    ["fe80::1%eth0", "fe80:0000:0000:0000:0000:0000:0000:0001"],
    ["2001:db8::", "2001:0db8:0000:0000:0000:0000:0000:0000"],
    ["1:2:3:4:5:6:7::", "0001:0002:0003:0004:0005:0006:0007:0000"],
  ])("reads the IPv6 spelling %s", (text, full) => {
    const ip = parseIp(text);
    expect(ip?.family).toBe(6);
    expect(Buffer.from(ip!.bytes).toString("hex").match(/.{4}/g)!.join(":")).toBe(full);
  });

  it.each(["", "256.0.0.1", "1.2.3.4.5", "0x100000000", "4294967296", "08.0.0.1", "1..2", "example.com", "::1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "12345::", "::ffff:1.2.3", ":1"])(
    "refuses %j",
    (text) => {
      expect(parseIp(text)).toBeNull();
    },
  );
});

describe("nonPublicRange", () => {
  it.each([
    ["0.0.0.0", "this network"],
    ["10.1.2.3", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "documentation"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback (IPv4-mapped)"],
    ["::ffff:a9fe:a9fe", "link-local (IPv4-mapped)"],
    ["::127.0.0.1", "loopback (IPv4-compatible)"],
    ["64:ff9b::10.0.0.1", "private (NAT64)"],
    ["64:ff9b:1::1", "NAT64 local use"],
    ["2002:c0a8:0101::1", "private (6to4)"],
    ["2001::1", "IETF protocol assignments"],
    ["2001:db8::1", "documentation"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["fe80::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["100::1", "discard"],
    ["4000::1", "reserved"],
  ])("%s is %s", (text, label) => {
    expect(range(text)).toBe(label);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450::1", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1"])(
    "%s is public",
    (text) => {
      expect(range(text)).toBeNull();
    },
  );
});

describe("checkUrl", () => {
  it("allows https by default and only the schemes the policy names", () => {
    expect(checkUrl("https://example.com/a.png").href).toBe("https://example.com/a.png");
    expect(refusal(() => checkUrl("http://example.com/a.png")).reason).toBe("scheme");
    expect(refusal(() => checkUrl("ftp://example.com/a.png", { protocols: ["http:", "https:"] })).reason).toBe("scheme");
    expect(refusal(() => checkUrl("file:///etc/passwd")).reason).toBe("scheme");
    expect(checkUrl("http://example.com/hook", { protocols: ["http:", "https:"] }).protocol).toBe("http:");
  });

  it("refuses what is not an absolute URL, and credentials in the URL", () => {
    expect(refusal(() => checkUrl("not a url")).reason).toBe("invalid_url");
    expect(refusal(() => checkUrl("/relative/path")).reason).toBe("invalid_url");
    expect(refusal(() => checkUrl("https://user:pass@example.com/")).reason).toBe("credentials");
  });

  it.each([
    "https://127.0.0.1/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0x7f.1/",
    "https://0177.0.0.1/",
    "https://017700000001/",
    "https://127.1/",
    "https://0/",
    "https://0.0.0.0/",
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://192.168.1.1:8443/",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[0:0:0:0:0:ffff:169.254.169.254]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[2002:7f00:1::]/",
    "https://[fe80::1]/",
    "https://[fd00::1]/",
    "https://localhost/",
    "https://LOCALHOST./",
    "https://api.localhost/",
  ])("refuses the non-public host of %s", (url) => {
    const err = refusal(() => checkUrl(url));
    expect(err.reason).toBe("private_address");
    expect(err.message).toMatch(/not a public address/);
  });

  it("lets public literals through, and everything with allowPrivate", () => {
    expect(checkUrl("https://93.184.216.34/x").hostname).toBe("93.184.216.34");
    expect(checkUrl("https://[2606:4700::1111]/x").hostname).toBe("[2606:4700::1111]");
    expect(checkUrl("https://127.0.0.1:8443/", { allowPrivate: true }).port).toBe("8443");
    expect(checkUrl("https://localhost/", { allowPrivate: true }).hostname).toBe("localhost");
    // allowPrivate is about addresses, not schemes.
    expect(refusal(() => checkUrl("http://127.0.0.1/", { allowPrivate: true })).reason).toBe("scheme");
  });

  it("allows exactly the trusted addresses, in any spelling", () => {
    const policy = { trustedAddresses: ["127.0.0.1"] };
    expect(checkUrl("https://2130706433/", policy).hostname).toBe("127.0.0.1");
    expect(refusal(() => checkUrl("https://127.0.0.2/", policy)).reason).toBe("private_address");
  });
});

describe("assertAddressAllowed", () => {
  it("reads raw address strings in every spelling (they need not come from a URL)", () => {
    for (const address of ["2130706433", "0x7f.1", "0177.0.0.1", "::ffff:127.0.0.1", "::ffff:7f00:1"]) {
      expect(refusal(() => assertAddressAllowed(address)).reason).toBe("private_address");
    }
    expect(() => assertAddressAllowed("8.8.8.8")).not.toThrow();
    expect(refusal(() => assertAddressAllowed("not-an-ip")).reason).toBe("private_address");
  });
});

describe("resolveTarget", () => {
  const resolve = dnsOf({
    "cdn.example": ["93.184.216.34", "2606:2800:220:1::1"],
    "intranet.example": ["10.0.0.5"],
    "mixed.example": ["93.184.216.34", "127.0.0.1"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "metadata.example": ["169.254.169.254"],
    "empty.example": [],
  });

  it("pins the first address of a public name", async () => {
    const target = await guardUrl("https://cdn.example/a.png", { resolve });
    expect(target).toMatchObject({ address: "93.184.216.34", family: 4 });
    expect(target.url.hostname).toBe("cdn.example");
  });

  it.each(["intranet.example", "mixed.example", "mapped.example", "metadata.example"])("refuses %s, which resolves inward", async (host) => {
    const err = await refusalOf(guardUrl(`https://${host}/a.png`, { resolve }));
    expect(err.reason).toBe("private_address");
    expect(err.message).toContain(host);
  });

  it("unknown and empty names are dns refusals", async () => {
    expect((await refusalOf(guardUrl("https://nowhere.example/", { resolve }))).reason).toBe("dns");
    expect((await refusalOf(guardUrl("https://empty.example/", { resolve }))).reason).toBe("dns");
  });

  it("does not resolve literals, and allowPrivate skips the address checks", async () => {
    const never: Resolver = async () => {
      throw new Error("must not be called");
    };
    expect(await resolveTarget(new URL("https://8.8.8.8/"), { resolve: never })).toMatchObject({ address: "8.8.8.8", family: 4 });
    expect(await resolveTarget(new URL("https://[2606:4700::1111]/"), { resolve: never })).toMatchObject({ address: "2606:4700::1111", family: 6 });
    expect(await guardUrl("https://intranet.example/", { resolve, allowPrivate: true })).toMatchObject({ address: "10.0.0.5" });
  });
});
