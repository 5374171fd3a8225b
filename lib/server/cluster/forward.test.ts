import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, createEaselServer } from "../http-server.mjs";
import { storageForwarder } from "./forward.mjs";

// A member's server (Easel's HTTP server with the forwarder) in front of a stand-in owner on a
// unix socket, whose handler each test chooses.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-forward-"));
const socketPath = path.join(dir, "store.sock");
let owner: http.Server | null = null;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => undefined;
let member: http.Server;
let origin: string;

async function startOwner() {
  owner = http.createServer((req, res) => handler(req, res));
  fs.rmSync(socketPath, { force: true });
  await new Promise<void>((resolve) => owner!.listen(socketPath, resolve));
}

async function stopOwner() {
  if (!owner) return;
  owner.closeAllConnections();
  await new Promise((resolve) => owner!.close(resolve));
  owner = null;
}

beforeAll(async () => {
  const forward = storageForwarder({ socketPath: () => socketPath, clientHeader: CLIENT_ADDRESS_HEADER });
  member = createEaselServer(
    async (_req, res) => {
      res.writeHead(299).end("next");
    },
    {
      forwardStorage: (req, res, p, id) => {
        forward(req, res, p, id);
        return true;
      },
    },
  );
  await new Promise<void>((resolve) => member.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(member.address() as AddressInfo).port}`;
});
afterEach(stopOwner);
afterAll(async () => {
  member.closeAllConnections();
  await new Promise((resolve) => member.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

type Answer = { status: number; rawHeaders: string[]; body: Buffer };
function send(method: string, pathname: string, rawHeaders: string[], body?: Buffer | Readable): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = http.request(`${origin}${pathname}`, { method, headers: rawHeaders as never, setHost: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    r.on("error", reject);
    if (body instanceof Readable) body.pipe(r);
    else r.end(body);
  });
}

describe("forwarding /storage/* to the store's owner", () => {
  it("passes method, path, query and raw headers unchanged, with the request id and the client's address it knows", async () => {
    await startOwner();
    let seen: { method?: string; url?: string; raw: string[]; body: string } = { raw: [], body: "" };
    handler = (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen = { method: req.method, url: req.url, raw: req.rawHeaders, body: Buffer.concat(chunks).toString() };
        res.writeHead(207, "Odd", ["ETag", '"abc"', "x-amz-meta-A", "1", "x-amz-meta-A", "2"]).end("answered");
      });
    };
    const a = await send("PUT", "/storage/s3/easel/k%20ey?X-Amz-Signature=abc&partNumber=2", [
      "Host", "Media.Example:9", "X-Amz-Date", "20260101T000000Z", "x-amz-meta-Two", "a", "x-amz-meta-Two", "b",
      "Content-Length", "5", "Connection", "close", CLIENT_ADDRESS_HEADER, "6.6.6.6", "X-Request-Id", "client-chosen-id",
    ], Buffer.from("hello"));
    expect(a.status).toBe(207);
    expect(a.body.toString()).toBe("answered");
    expect(a.rawHeaders).toEqual(expect.arrayContaining(["ETag", '"abc"', "x-amz-meta-A", "1", "x-amz-meta-A", "2"]));
    expect(seen.method).toBe("PUT");
    expect(seen.url).toBe("/storage/s3/easel/k%20ey?X-Amz-Signature=abc&partNumber=2");
    expect(seen.body).toBe("hello");
    // As sent, in order and case, repeats apart; the connection's own header dropped.
    expect(seen.raw.slice(0, 10)).toEqual(["Host", "Media.Example:9", "X-Amz-Date", "20260101T000000Z", "x-amz-meta-Two", "a", "x-amz-meta-Two", "b", "Content-Length", "5"]);
    const pairs = (raw: string[]) => Array.from({ length: raw.length / 2 }, (_, i) => [raw[2 * i].toLowerCase(), raw[2 * i + 1]]);
    const client = pairs(seen.raw).filter(([k]) => k === CLIENT_ADDRESS_HEADER);
    // The address a client claimed is gone; the one the member saw is there, once.
    expect(client).toEqual([[CLIENT_ADDRESS_HEADER, "127.0.0.1"]]);
    const ids = pairs(seen.raw).filter(([k]) => k === "x-request-id");
    expect(ids).toEqual([["x-request-id", "client-chosen-id"]]);
    // The client's connection header described its own connection, not the member's to the owner.
    expect(pairs(seen.raw).filter(([k]) => k === "connection").map(([, v]) => v)).toEqual(["keep-alive"]);
  });

  it("streams large bodies both ways intact", async () => {
    await startOwner();
    const up = crypto.randomBytes(24 * 1024 * 1024);
    const down = crypto.randomBytes(16 * 1024 * 1024);
    let received = "";
    handler = (req, res) => {
      const hash = crypto.createHash("md5");
      req.on("data", (c: Buffer) => hash.update(c));
      req.on("end", () => {
        received = hash.digest("hex");
        res.writeHead(200, { "content-length": String(down.length) });
        res.end(down);
      });
    };
    const a = await send("PUT", "/storage/s3/easel/big", ["Host", "x", "Transfer-Encoding", "chunked"], Readable.from([up.subarray(0, 1 << 20), up.subarray(1 << 20)]));
    expect(received).toBe(crypto.createHash("md5").update(up).digest("hex"));
    expect(a.status).toBe(200);
    expect(crypto.createHash("md5").update(a.body).digest("hex")).toBe(crypto.createHash("md5").update(down).digest("hex"));
  });

  it("holds back a client's upload while the owner does not read it (backpressure, no buffering in the member)", async () => {
    await startOwner();
    let ownerReq: http.IncomingMessage | null = null;
    handler = (req) => {
      ownerReq = req; // never read
    };
    const total = 256 * 1024 * 1024;
    let pushed = 0;
    const chunk = Buffer.alloc(1024 * 1024);
    const source = new Readable({
      read() {
        if (pushed >= total) return this.push(null);
        pushed += chunk.length;
        this.push(chunk);
      },
    });
    const r = http.request(`${origin}/storage/s3/easel/slow`, { method: "PUT", agent: false, headers: { "content-length": String(total) } });
    r.on("error", () => undefined);
    source.pipe(r);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(ownerReq).not.toBeNull();
    // Only what the sockets' buffers hold has left the source, not the body.
    expect(pushed).toBeLessThan(64 * 1024 * 1024);
    r.destroy();
  });

  it("aborts the forwarded request when the client goes away mid-upload", async () => {
    await startOwner();
    const outcome = new Promise<{ complete: boolean; bytes: number }>((resolve) => {
      handler = (req) => {
        let bytes = 0;
        req.on("data", (c: Buffer) => (bytes += c.length));
        req.on("close", () => resolve({ complete: req.complete, bytes }));
      };
    });
    const r = http.request(`${origin}/storage/s3/easel/cut`, { method: "PUT", agent: false, headers: { "content-length": String(8 * 1024 * 1024) } });
    r.on("error", () => undefined);
    r.write(Buffer.alloc(1024 * 1024), () => setTimeout(() => r.destroy(), 200));
    const seen = await outcome;
    expect(seen.complete).toBe(false);
    expect(seen.bytes).toBeGreaterThan(0);
    expect(seen.bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it("answers 503 in the protocol's error format when no owner listens", async () => {
    fs.rmSync(socketPath, { force: true });
    const s3 = await send("GET", "/storage/s3/easel/k", ["Host", "x"]);
    expect(s3.status).toBe(503);
    expect(s3.body.toString()).toContain("<Code>ServiceUnavailable</Code>");
    expect(s3.rawHeaders).toEqual(expect.arrayContaining(["retry-after", "1"]));
    const gcs = await send("GET", "/storage/gcs/easel/k", ["Host", "x"]);
    expect(gcs.status).toBe(503);
    expect(JSON.parse(gcs.body.toString()).error.code).toBe(503);
  });

  it("closes the client's connection when the owner dies mid-answer, rather than leave it waiting", async () => {
    await startOwner();
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { "content-length": "1000000" });
      res.write(Buffer.alloc(1000), () => setTimeout(() => req.socket.destroy(), 100));
    };
    const ended = await new Promise<string>((resolve) => {
      const r = http.get(`${origin}/storage/s3/easel/dies`, { agent: false }, (res) => {
        res.on("data", () => undefined);
        res.on("end", () => resolve("end"));
        res.on("aborted", () => resolve("aborted"));
        res.on("error", () => resolve("error"));
      });
      r.on("error", () => resolve("error"));
    });
    expect(["aborted", "error"]).toContain(ended);
  });

  it("leaves every other path to the app", async () => {
    const a = await send("GET", "/v1/anything", ["Host", "x"]);
    expect(a.status).toBe(299);
  });
});
