import crypto from "node:crypto";
import http from "node:http";
import { Storage, type GetSignedUrlConfig } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headObject, createBucket } from "../disk/objects";
import { GCS_MOUNT_PATH } from "../mounts";
import { md5Hex, movableClock, startGcsStore, tempDir, type StoreServer } from "../testing/fixtures";

// The embedded store's GCS endpoint, with URLs signed by @google-cloud/storage itself (offline V4
// signing with a key pair the store knows), driven over HTTP as browsers and clients do.
const KiB = 1024;
const clock = movableClock();
const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const clientEmail = "signer@easel.test";
let store: StoreServer;
let storage: Storage;

/** A V4 signed URL for `key`, moved under the store's mount (as the GCS driver does). */
async function signed(key: string, cfg: Omit<GetSignedUrlConfig, "version" | "expires"> & { expiresInMs?: number }): Promise<string> {
  const now = clock();
  const [url] = await storage.bucket("easel").file(key).getSignedUrl({ version: "v4", accessibleAt: now, expires: now.getTime() + (cfg.expiresInMs ?? 600_000), ...cfg });
  const u = new URL(url);
  return `${store.origin}${GCS_MOUNT_PATH}${u.pathname}${u.search}`;
}

async function startSession(key: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(await signed(key, { action: "resumable" }), { method: "POST", headers: { "x-goog-resumable": "start", ...headers } });
  expect(res.status).toBe(201);
  const location = res.headers.get("location");
  expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/storage\/gcs\/easel\/.+\?upload_id=[A-Za-z0-9_-]{32}$/);
  return location as string;
}

const put = (session: string, body: Uint8Array, contentRange?: string) =>
  fetch(session, { method: "PUT", body: new Uint8Array(body), headers: contentRange ? { "content-range": contentRange } : {} });

beforeAll(async () => {
  store = await startGcsStore({ root: tempDir("gcs"), identity: async () => ({ clientEmail, publicKey }), clock });
  await createBucket(store.lay, "easel", clock());
  storage = new Storage({ projectId: "easel-test", apiEndpoint: store.origin, credentials: { client_email: clientEmail, private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() } });
});

afterAll(() => store?.close());

describe("resumable sessions", () => {
  it("takes a whole object in one PUT (200) and records its md5", async () => {
    const bytes = crypto.randomBytes(300 * KiB);
    const session = await startSession("whole/one.bin", { "content-type": "image/png" });
    const res = await put(session, bytes);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-goog-hash")).toBe(`md5=${crypto.createHash("md5").update(bytes).digest("base64")}`);
    expect(await headObject(store.lay, "easel", "whole/one.bin")).toMatchObject({ size: bytes.length, md5: md5Hex(bytes), contentType: "image/png" });
  });

  it("takes chunks with Content-Range: 308 + Range until the last, status queries in between", async () => {
    const total = 1_310_720;
    const chunk = 512 * KiB;
    const bytes = crypto.randomBytes(total);
    const session = await startSession("chunked/file.bin");

    const empty = await put(session, new Uint8Array(0), `bytes */${total}`);
    expect(empty.status).toBe(308);
    expect(empty.headers.get("range")).toBeNull(); // nothing stored yet

    let res = await put(session, bytes.subarray(0, chunk), `bytes 0-${chunk - 1}/${total}`);
    expect([res.status, res.headers.get("range")]).toEqual([308, `bytes=0-${chunk - 1}`]);
    res = await put(session, new Uint8Array(0), `bytes */${total}`);
    expect([res.status, res.headers.get("range")]).toEqual([308, `bytes=0-${chunk - 1}`]);
    res = await put(session, bytes.subarray(chunk, 2 * chunk), `bytes ${chunk}-${2 * chunk - 1}/${total}`);
    expect([res.status, res.headers.get("range")]).toEqual([308, `bytes=0-${2 * chunk - 1}`]);
    expect(await headObject(store.lay, "easel", "chunked/file.bin")).toBeNull(); // not visible before the last byte
    res = await put(session, bytes.subarray(2 * chunk), `bytes ${2 * chunk}-${total - 1}/${total}`);
    expect(res.status).toBe(200);
    expect(await headObject(store.lay, "easel", "chunked/file.bin")).toMatchObject({ size: total, md5: md5Hex(bytes) });
    // A finished session keeps answering 200 (a client that lost the last answer asks again).
    expect((await put(session, new Uint8Array(0), `bytes */${total}`)).status).toBe(200);
  });

  it("skips bytes sent again after a lost answer, and refuses a chunk that starts past what is stored", async () => {
    const total = 768 * KiB;
    const bytes = crypto.randomBytes(total);
    const session = await startSession("resend/file.bin");
    expect((await put(session, bytes.subarray(0, 256 * KiB), `bytes 0-${256 * KiB - 1}/${total}`)).status).toBe(308);
    const gap = await put(session, bytes.subarray(512 * KiB), `bytes ${512 * KiB}-${total - 1}/${total}`);
    expect(gap.status).toBe(400);
    expect(await gap.text()).toContain("<Code>InvalidArgument</Code>");
    // Resent from 0: the first 256 KiB are already there and are skipped.
    const resent = await put(session, bytes.subarray(0, 512 * KiB), `bytes 0-${512 * KiB - 1}/${total}`);
    expect([resent.status, resent.headers.get("range")]).toEqual([308, `bytes=0-${512 * KiB - 1}`]);
    expect((await put(session, bytes.subarray(512 * KiB), `bytes ${512 * KiB}-${total - 1}/${total}`)).status).toBe(200);
    expect((await headObject(store.lay, "easel", "resend/file.bin"))?.md5).toBe(md5Hex(bytes));
  });

  it("refuses a non-final chunk that does not end on a 256 KiB boundary, keeping what was stored", async () => {
    const session = await startSession("granularity/file.bin");
    const bytes = crypto.randomBytes(600 * KiB);
    expect((await put(session, bytes.subarray(0, 256 * KiB), `bytes 0-${256 * KiB - 1}/*`)).status).toBe(308);
    const odd = await put(session, bytes.subarray(256 * KiB, 300 * KiB), `bytes ${256 * KiB}-${300 * KiB - 1}/*`);
    expect(odd.status).toBe(400);
    const status = await put(session, new Uint8Array(0), "bytes */*");
    expect([status.status, status.headers.get("range")]).toEqual([308, `bytes=0-${256 * KiB - 1}`]);
    // Total unknown until the end: the last chunk names it.
    expect((await put(session, bytes.subarray(256 * KiB), `bytes ${256 * KiB}-${bytes.length - 1}/${bytes.length}`)).status).toBe(200);
    expect((await headObject(store.lay, "easel", "granularity/file.bin"))?.md5).toBe(md5Hex(bytes));
  });

  it("finishes with `bytes */N` once N bytes have arrived in chunks of unknown total", async () => {
    const bytes = crypto.randomBytes(512 * KiB);
    const session = await startSession("star/file.bin");
    expect((await put(session, bytes, `bytes 0-${bytes.length - 1}/*`)).status).toBe(308);
    expect((await put(session, new Uint8Array(0), `bytes */${bytes.length}`)).status).toBe(200);
    expect((await headObject(store.lay, "easel", "star/file.bin"))?.md5).toBe(md5Hex(bytes));
  });

  it("holds a whole PUT to the size declared when the session was opened", async () => {
    const session = await startSession("declared/file.bin", { "x-upload-content-length": "100" });
    const res = await put(session, crypto.randomBytes(50));
    expect(res.status).toBe(400);
    expect(await headObject(store.lay, "easel", "declared/file.bin")).toBeNull();
    const status = await put(session, new Uint8Array(0), "bytes */100");
    expect([status.status, status.headers.get("range")]).toEqual([308, null]);
    expect((await put(session, crypto.randomBytes(100))).status).toBe(200);
  });

  it("cancels with DELETE (499); the session is gone afterwards (404)", async () => {
    const session = await startSession("cancel/file.bin");
    expect((await put(session, crypto.randomBytes(256 * KiB), `bytes 0-${256 * KiB - 1}/*`)).status).toBe(308);
    expect((await fetch(session, { method: "DELETE" })).status).toBe(499);
    const after = await put(session, new Uint8Array(0), "bytes */*");
    expect(after.status).toBe(404);
    expect(await after.text()).toContain("<Code>NoSuchUpload</Code>");
    expect(await headObject(store.lay, "easel", "cancel/file.bin")).toBeNull();
  });

  it("answers 404 for an unknown session id or a session URL moved to another object", async () => {
    const session = await startSession("owned/file.bin");
    expect((await put(session.replace(/upload_id=.*/, "upload_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), new Uint8Array(1))).status).toBe(404);
    expect((await put(session.replace("owned/file.bin", "owned/other.bin"), new Uint8Array(1))).status).toBe(404);
    expect((await put(session.replace(/upload_id=.*/, "upload_id=../../x"), new Uint8Array(1))).status).toBe(404);
  });

  it("a client that aborts mid-chunk loses only that chunk; the upload resumes", async () => {
    const total = 1024 * KiB;
    const bytes = crypto.randomBytes(total);
    const session = new URL(await startSession("abort/file.bin"));
    expect((await put(session.href, bytes.subarray(0, 256 * KiB), `bytes 0-${256 * KiB - 1}/${total}`)).status).toBe(308);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: session.hostname,
        port: session.port,
        path: session.pathname + session.search,
        method: "PUT",
        headers: { "content-range": `bytes ${256 * KiB}-${total - 1}/${total}`, "content-length": total - 256 * KiB },
      });
      req.on("error", () => resolve());
      req.write(bytes.subarray(256 * KiB, 400 * KiB), () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 100));
    });
    let status: Response | null = null;
    for (let i = 0; i < 50; i++) {
      status = await put(session.href, new Uint8Array(0), `bytes */${total}`);
      if (status.headers.get("range") === `bytes=0-${256 * KiB - 1}`) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect([status?.status, status?.headers.get("range")]).toEqual([308, `bytes=0-${256 * KiB - 1}`]);
    expect((await put(session.href, bytes.subarray(256 * KiB), `bytes ${256 * KiB}-${total - 1}/${total}`)).status).toBe(200);
    expect((await headObject(store.lay, "easel", "abort/file.bin"))?.md5).toBe(md5Hex(bytes));
  });
});

describe("signed URLs", () => {
  it("refuses a tampered signature or path with 403 in GCS's XML error format", async () => {
    const url = await signed("tamper/file.bin", { action: "resumable" });
    const tampered = url.replace(/X-Goog-Signature=([0-9a-f])/, (_, c: string) => `X-Goog-Signature=${c === "0" ? "1" : "0"}`);
    const res = await fetch(tampered, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/^<\?xml[\s\S]*<Error><Code>SignatureDoesNotMatch<\/Code>/);
    expect((await fetch(url.replace("tamper/file.bin", "tamper/other.bin"), { method: "POST", headers: { "x-goog-resumable": "start" } })).status).toBe(403);
    // The signed x-goog-resumable header must be sent as signed.
    expect((await fetch(url, { method: "POST" })).status).toBe(403);
    expect((await fetch(url, { method: "POST", headers: { "x-goog-resumable": "start" } })).status).toBe(201);
  });

  it("refuses a URL past its expiry by Easel's clock (403 ExpiredToken)", async () => {
    const url = await signed("late/file.bin", { action: "resumable", expiresInMs: 60_000 });
    clock.advance(61_000);
    try {
      const res = await fetch(url, { method: "POST", headers: { "x-goog-resumable": "start" } });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("<Code>ExpiredToken</Code>");
    } finally {
      clock.advance(-61_000);
    }
  });

  it("refuses unsigned requests and URLs signed by another key", async () => {
    expect((await fetch(`${store.origin}${GCS_MOUNT_PATH}/easel/x.bin`, { method: "POST", headers: { "x-goog-resumable": "start" } })).status).toBe(403);
    const stranger = new Storage({
      projectId: "x",
      apiEndpoint: store.origin,
      credentials: { client_email: clientEmail, private_key: crypto.generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString() },
    });
    const [url] = await stranger.bucket("easel").file("x.bin").getSignedUrl({ version: "v4", action: "resumable", expires: Date.now() + 60_000 });
    const u = new URL(url);
    expect((await fetch(`${store.origin}${GCS_MOUNT_PATH}${u.pathname}${u.search}`, { method: "POST", headers: { "x-goog-resumable": "start" } })).status).toBe(403);
  });

  it("serves signed reads with ranges and the signed response type", async () => {
    const bytes = crypto.randomBytes(50 * KiB);
    await put(await startSession("read/file.bin"), bytes);
    const url = await signed("read/file.bin", { action: "read", responseType: "image/webp" });
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("image/webp");
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(url, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    expect((await fetch(await signed("read/none.bin", { action: "read" }))).status).toBe(404);
  });

  it("answers CORS preflights and exposes Location and Range", async () => {
    const pre = await fetch(`${store.origin}${GCS_MOUNT_PATH}/easel/any.bin?upload_id=x`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "PUT", "access-control-request-headers": "content-range" },
    });
    expect(pre.status).toBe(200);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-headers")).toBe("content-range");
    const start = await fetch(await signed("cors/file.bin", { action: "resumable" }), { method: "POST", headers: { "x-goog-resumable": "start", origin: "https://app.example" } });
    const exposed = start.headers.get("access-control-expose-headers") ?? "";
    for (const h of ["Location", "Range", "ETag"]) expect(exposed).toContain(h);
  });
});
