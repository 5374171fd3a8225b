import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { CLIENT_ADDRESS_HEADER, createEaselServer } from "../server/http-server.mjs";
import { answerWith } from "../server/node-bridge";
import { clientAddress, UNKNOWN_CLIENT_ADDRESS } from "./client-address";
import { clientAddress as rateLimitClientAddress } from "./rate-limit";

const SERVER_HEADER_KEY = Symbol.for("easel.clientAddressHeader");
const globals = globalThis as { [SERVER_HEADER_KEY]?: string };

function request(headers: Record<string, string>) {
  return new Request("http://easel.test/api/auth/callback/credentials", { headers });
}

function trustProxies(hops: string | undefined) {
  if (hops === undefined) delete process.env.EASEL_TRUST_PROXY;
  else process.env.EASEL_TRUST_PROXY = hops;
  resetEnvCache();
}

afterEach(() => {
  delete globals[SERVER_HEADER_KEY];
  trustProxies(undefined);
});

describe("without Easel's server (next dev, next start)", () => {
  it("trusts no header: every client is unknown", () => {
    const forged = request({ [CLIENT_ADDRESS_HEADER]: "10.1.1.1", "x-forwarded-for": "10.2.2.2", "x-real-ip": "10.3.3.3" });
    expect(clientAddress(forged)).toBe(UNKNOWN_CLIENT_ADDRESS);
    expect(rateLimitClientAddress(forged)).toBe(UNKNOWN_CLIENT_ADDRESS);
  });

  it("reads X-Forwarded-For when EASEL_TRUST_PROXY is set", () => {
    trustProxies("1");
    expect(clientAddress(request({ "x-forwarded-for": "10.9.9.9, 203.0.113.7" }))).toBe("203.0.113.7");
  });
});

describe("behind Easel's server", () => {
  let server: http.Server;
  let port: number;

  beforeEach(async () => {
    // A stand-in for Next.js that answers with the address the app decides on.
    server = createEaselServer((req, res) => answerWith(async (web) => new Response(clientAddress(web)), req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  async function ask(headers: Record<string, string>) {
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers });
    return res.text();
  }

  it("is the TCP peer's address, whatever header the client sends", async () => {
    expect(await ask({})).toBe("127.0.0.1");
    expect(await ask({ [CLIENT_ADDRESS_HEADER]: "198.51.100.1", "x-forwarded-for": "198.51.100.2", "x-real-ip": "198.51.100.3" })).toBe("127.0.0.1");
  });

  it("with EASEL_TRUST_PROXY=1 is the right-most X-Forwarded-For entry", async () => {
    trustProxies("1");
    expect(await ask({ "x-forwarded-for": "198.51.100.2, 203.0.113.7" })).toBe("203.0.113.7");
    expect(await ask({ "x-forwarded-for": "203.0.113.7" })).toBe("203.0.113.7");
    // No header (a proxy that sets none, or a request that skipped it): the peer.
    expect(await ask({})).toBe("127.0.0.1");
    // The chosen entry is no address: the proxy does not append; the client wrote it.
    expect(await ask({ "x-forwarded-for": "203.0.113.7, not-an-address" })).toBe("127.0.0.1");
  });
});

describe("with EASEL_TRUST_PROXY", () => {
  beforeEach(() => {
    globals[SERVER_HEADER_KEY] = CLIENT_ADDRESS_HEADER;
  });

  it("counts the proxies from the right", () => {
    trustProxies("2");
    const chain = { "x-forwarded-for": "10.0.0.66, 203.0.113.7, 192.0.2.10", [CLIENT_ADDRESS_HEADER]: "192.0.2.20" };
    expect(clientAddress(request(chain))).toBe("203.0.113.7");
    // Shorter than the proxies declared: the request skipped the outer ones; its left-most entry.
    expect(clientAddress(request({ "x-forwarded-for": "192.0.2.10", [CLIENT_ADDRESS_HEADER]: "192.0.2.20" }))).toBe("192.0.2.10");
  });

  it("accepts one spelling per address", () => {
    trustProxies("true");
    const one = (xff: string) => clientAddress(request({ "x-forwarded-for": xff, [CLIENT_ADDRESS_HEADER]: "192.0.2.20" }));
    expect(one("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(one("203.0.113.7:51234")).toBe("203.0.113.7");
    expect(one("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(one("2001:db8::1")).toBe("2001:db8::1");
  });

  it("is off by default and with 0", () => {
    for (const hops of [undefined, "0"]) {
      trustProxies(hops);
      expect(clientAddress(request({ "x-forwarded-for": "203.0.113.7", [CLIENT_ADDRESS_HEADER]: "::ffff:192.0.2.20" }))).toBe("192.0.2.20");
    }
  });

  it("refuses a value that is no number of proxies", () => {
    trustProxies("lots");
    expect(() => clientAddress(request({}))).toThrow(/EASEL_TRUST_PROXY/);
  });
});
