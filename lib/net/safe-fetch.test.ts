import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCert, startServer, streamBytes, type Pem, type TestServer } from "../../tests/mcp/helpers/servers";
import { safeFetch } from "./safe-fetch";
import { UrlGuardError, type Resolver } from "./url-guard";

/**
 * Against real local servers. Names are answered by a fake resolver (files.test → 127.0.0.1),
 * and 127.0.0.1 is a trusted address, so the guard's address rules stay on for everything else.
 */
let pem: Pem;
let main: TestServer;
let other: TestServer;
const seen: { path: string; host?: string; authorization?: string }[] = [];
let resolutions = 0;
const resolve: Resolver = async (host) => {
  resolutions++;
  if (host === "files.test" || host === "other.test") return [{ address: "127.0.0.1", family: 4 }];
  if (host === "rebind.test") return [{ address: resolutions > 1 ? "10.0.0.7" : "127.0.0.1", family: 4 }];
  throw new Error("ENOTFOUND");
};

async function refusal(p: Promise<unknown>): Promise<UrlGuardError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof UrlGuardError)) throw new Error(`expected a UrlGuardError, got ${String(err)}`);
  return err;
}

const MiB = 1024 * 1024;

function routes(port: () => number): http.RequestListener {
  return (req, res) => {
    seen.push({ path: req.url ?? "", host: req.headers.host, authorization: req.headers.authorization });
    const to = (status: number, location: string) => res.writeHead(status, { location }).end();
    switch (req.url) {
      case "/file":
        return void res.writeHead(200, { "content-type": "image/png" }).end("hello");
      case "/to-file":
        return to(302, "/file");
      case "/to-other":
        return to(307, `https://other.test:${other.port}/file`);
      case "/to-metadata":
        return to(302, "https://169.254.169.254/latest/meta-data/");
      case "/to-mapped":
        return to(302, "https://[::ffff:127.0.0.2]/");
      case "/to-http":
        return to(301, `http://files.test:${port()}/file`);
      case "/to-file-chatty":
        // A redirect with a body larger than any limit: only its Location matters.
        res.writeHead(302, { location: "/file" });
        return void streamBytes(res, 3 * MiB);
      case "/loop":
        return to(302, "/loop");
      case "/to-rebind":
        return to(302, `https://rebind.test:${port()}/file`);
      case "/chunked-big":
        res.writeHead(200, { "content-type": "application/octet-stream" });
        return void streamBytes(res, 3 * MiB).then((sent) => seen.push({ path: `sent:${sent}` }));
      case "/declared-big":
        res.writeHead(200, { "content-length": String(3 * MiB) });
        return void res.end("x");
      case "/exact":
        res.writeHead(200, { "content-length": String(MiB) });
        return void streamBytes(res, MiB);
      case "/silent":
        return; // never answers
      case "/truncated":
        res.writeHead(200, { "content-length": "100" });
        res.write("only part");
        return void setTimeout(() => res.destroy(), 20);
      default:
        return void res.writeHead(404).end("no");
    }
  };
}

beforeAll(async () => {
  pem = selfSignedCert({ dns: ["files.test", "other.test", "rebind.test"], ips: ["127.0.0.1"] });
  main = await startServer(routes(() => main.port), pem);
  other = await startServer(routes(() => other.port), pem);
});
afterAll(async () => {
  await main?.close();
  await other?.close();
});

const base = () => ({ resolve, trustedAddresses: ["127.0.0.1"], ca: pem.cert });
const at = (path: string, host = "files.test") => `https://${host}:${main.port}${path}`;

describe("safeFetch", () => {
  it("connects to the address the guard checked, while TLS and Host still name the host", async () => {
    seen.length = 0;
    const res = await safeFetch(at("/file"), base());
    expect(res).toMatchObject({ status: 200, address: "127.0.0.1", url: at("/file") });
    expect(res.body.toString()).toBe("hello");
    expect(res.headers.get("content-type")).toBe("image/png");
    // files.test exists only in the fake resolver: the connection used the pinned address.
    expect(seen).toEqual([{ path: "/file", host: `files.test:${main.port}`, authorization: undefined }]);
  });

  it("verifies certificates: a server the caller does not trust is a network failure", async () => {
    const err = await refusal(safeFetch(at("/file"), { resolve, trustedAddresses: ["127.0.0.1"] }));
    expect(err.reason).toBe("network");
    expect(err.message).toMatch(/SELF_SIGNED|CERT/);
  });

  it("follows redirects by hand and re-checks every hop", async () => {
    const res = await safeFetch(at("/to-file"), base());
    expect(res.status).toBe(200);
    expect(res.url).toBe(at("/file"));
    expect((await safeFetch(at("/to-file-chatty"), { ...base(), maxBytes: 1024 })).body.toString()).toBe("hello");
    expect((await refusal(safeFetch(at("/to-metadata"), base()))).reason).toBe("private_address");
    expect((await refusal(safeFetch(at("/to-mapped"), base()))).reason).toBe("private_address");
    expect((await refusal(safeFetch(at("/to-http"), base()))).reason).toBe("scheme");
    expect((await refusal(safeFetch(at("/loop"), { ...base(), maxRedirects: 3 }))).reason).toBe("too_many_redirects");
  });

  it("resolves each hop afresh, so a name that turns private on the second look is refused", async () => {
    resolutions = 0;
    const err = await refusal(safeFetch(at("/to-rebind", "rebind.test"), base()));
    expect(err.reason).toBe("private_address");
    expect(err.message).toContain("10.0.0.7");
  });

  it("with maxRedirects 0 hands back the redirect itself", async () => {
    const res = await safeFetch(at("/to-file"), { ...base(), maxRedirects: 0 });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/file");
  });

  it("drops credentials when a redirect leaves the origin", async () => {
    seen.length = 0;
    const res = await safeFetch(at("/to-other"), { ...base(), headers: { authorization: "Bearer secret", "x-kept": "1" } });
    expect(res.status).toBe(200);
    expect(seen.map((s) => [s.host, s.authorization])).toEqual([
      [`files.test:${main.port}`, "Bearer secret"],
      [`other.test:${other.port}`, undefined],
    ]);
  });

  it("refuses a body over maxBytes while it streams, without Content-Length, and stops reading", async () => {
    seen.length = 0;
    const err = await refusal(safeFetch(at("/chunked-big"), { ...base(), maxBytes: MiB }));
    expect(err.reason).toBe("too_large");
    await expect.poll(() => seen.find((s) => s.path.startsWith("sent:"))?.path).toBeDefined();
    const sent = Number(seen.find((s) => s.path.startsWith("sent:"))!.path.slice(5));
    expect(sent).toBeLessThan(3 * MiB);
  });

  it("refuses a declared Content-Length over maxBytes before reading, and accepts exactly maxBytes", async () => {
    expect((await refusal(safeFetch(at("/declared-big"), { ...base(), maxBytes: MiB }))).reason).toBe("too_large");
    const res = await safeFetch(at("/exact"), { ...base(), maxBytes: MiB });
    expect(res.body.length).toBe(MiB);
  });

  it("a body cut short is a network failure, not a short file", async () => {
    expect((await refusal(safeFetch(at("/truncated"), base()))).reason).toBe("network");
  });

  it("gives up at the deadline", async () => {
    const started = Date.now();
    expect((await refusal(safeFetch(at("/silent"), { ...base(), timeoutMs: 300 }))).reason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("returns other statuses for the caller to judge", async () => {
    const res = await safeFetch(at("/missing"), base());
    expect(res.status).toBe(404);
    expect(res.body.toString()).toBe("no");
  });

  it("refuses before connecting when the first URL is not allowed", async () => {
    expect((await refusal(safeFetch(`https://127.0.0.1:${main.port}/file`, { resolve, ca: pem.cert }))).reason).toBe("private_address");
    expect((await refusal(safeFetch(`http://files.test:${main.port}/file`, base()))).reason).toBe("scheme");
    expect((await safeFetch(`https://127.0.0.1:${main.port}/file`, { allowPrivate: true, ca: pem.cert })).status).toBe(200);
  });
});
