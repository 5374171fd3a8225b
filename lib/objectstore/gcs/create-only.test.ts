import crypto from "node:crypto";
import { Storage, type GetSignedUrlConfig } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBucket, headObject } from "../disk/objects";
import { GCS_MOUNT_PATH } from "../mounts";
import { md5Hex, movableClock, storedBytes as readStoredBytes, startGcsStore, tempDir, tmpLeftovers, type StoreServer } from "../testing/fixtures";

// Every write on the store's GCS endpoint is authorized by a signed URL (or the session one
// opened), so each may create an object but never replace one (contract §12).
const KiB = 1024;
const clock = movableClock();
const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const clientEmail = "signer@easel.test";
let store: StoreServer;
let storage: Storage;

async function signed(key: string, cfg: Omit<GetSignedUrlConfig, "version" | "expires">): Promise<string> {
  const now = clock();
  const [url] = await storage.bucket("easel").file(key).getSignedUrl({ version: "v4", accessibleAt: now, expires: now.getTime() + 600_000, ...cfg });
  const u = new URL(url);
  return `${store.origin}${GCS_MOUNT_PATH}${u.pathname}${u.search}`;
}

const start = async (key: string) => fetch(await signed(key, { action: "resumable" }), { method: "POST", headers: { "x-goog-resumable": "start" } });

async function session(key: string): Promise<string> {
  const res = await start(key);
  expect(res.status).toBe(201);
  return res.headers.get("location")!;
}

const put = (url: string, body: Uint8Array, contentRange?: string) => fetch(url, { method: "PUT", body: new Uint8Array(body), headers: contentRange ? { "content-range": contentRange } : {} });

const storedBytes = (key: string) => readStoredBytes(store.lay, key);

beforeAll(async () => {
  store = await startGcsStore({ root: tempDir("gcs-create-only"), identity: async () => ({ clientEmail, publicKey }), clock });
  await createBucket(store.lay, "easel", clock());
  storage = new Storage({ projectId: "easel-test", apiEndpoint: store.origin, credentials: { client_email: clientEmail, private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() } });
});

afterAll(() => store?.close());

describe("resumable sessions on a name that holds an object", () => {
  it("the signed start URL opens no new session once the object exists (412, GCS's XML error)", async () => {
    const key = "ws/1/originals/started-twice";
    const bytes = crypto.randomBytes(100 * KiB);
    expect((await put(await session(key), bytes)).status).toBe(200);
    const again = await start(key);
    expect(again.status).toBe(412);
    expect(again.headers.get("location")).toBeNull();
    const xml = await again.text();
    expect(xml).toContain("<Code>PreconditionFailed</Code>");
    expect(xml).toContain("<Details>");
    expect((await storedBytes(key)).equals(bytes)).toBe(true);
  });

  it("a session opened before another finished is refused at its last byte and keeps what it had; the same bytes finish as a no-op", async () => {
    const key = "ws/1/originals/two-sessions";
    const first = crypto.randomBytes(300 * KiB);
    const late = await session(key);
    const same = await session(key);
    const winner = await session(key);
    expect((await put(winner, first)).status).toBe(200);
    const record = await headObject(store.lay, "easel", key);

    // Chunked: the first chunk is stored, the last one would commit and is refused.
    const other = crypto.randomBytes(300 * KiB);
    expect((await put(late, other.subarray(0, 256 * KiB), `bytes 0-${256 * KiB - 1}/${other.length}`)).status).toBe(308);
    const refused = await put(late, other.subarray(256 * KiB), `bytes ${256 * KiB}-${other.length - 1}/${other.length}`);
    expect(refused.status).toBe(412);
    expect(await refused.text()).toContain("<Code>PreconditionFailed</Code>");
    const status = await put(late, new Uint8Array(0), `bytes */${other.length}`);
    expect([status.status, status.headers.get("range")]).toEqual([308, `bytes=0-${256 * KiB - 1}`]);
    expect(await headObject(store.lay, "easel", key)).toEqual(record);

    const ok = await put(same, first);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-goog-hash")).toBe(`md5=${Buffer.from(md5Hex(first), "hex").toString("base64")}`);
    expect(await headObject(store.lay, "easel", key)).toEqual(record);
    expect((await storedBytes(key)).equals(first)).toBe(true);
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("a signed PUT creates an object and cannot replace it", async () => {
    const key = "ws/1/originals/signed-put";
    const url = await signed(key, { action: "write", contentType: "application/octet-stream" });
    const headers = { "content-type": "application/octet-stream" };
    expect((await fetch(url, { method: "PUT", body: "first", headers })).status).toBe(200);
    expect((await fetch(url, { method: "PUT", body: "second", headers })).status).toBe(412);
    expect((await fetch(url, { method: "PUT", body: "first", headers })).status).toBe(200);
    expect((await storedBytes(key)).toString()).toBe("first");
  });
});
