import crypto from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, EaselError, uploadFile, type ResumeState } from "../src/index";
import { startFakeEasel, type FakeEasel } from "./fake-easel";

const MiB = 1024 * 1024;
const fast = { baseDelayMs: 1, maxDelayMs: 5 };
const bytesOf = (n: number) => crypto.randomBytes(n);
const md5 = (b: Uint8Array) => crypto.createHash("md5").update(b).digest("hex");

let fake: FakeEasel | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

const partPuts = (f: FakeEasel) => f.seen.filter((s) => s.method === "PUT" && s.path.startsWith("/storage/part/"));

describe("uploadFile, s3 kind", () => {
  it("sends a small file in one PUT and returns the asset", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    const data = bytesOf(1000);
    const progress: number[] = [];
    const asset = await uploadFile(createClient({ baseUrl: fake.origin, retry: fast }), { workspace: "ws", blob: new Blob([data]), onProgress: (sent, total) => (expect(total).toBe(1000), progress.push(sent)) });
    expect(asset.md5).toBe(md5(data));
    expect(fake.seen.filter((s) => s.path.startsWith("/storage/single/"))).toHaveLength(1);
    expect(progress.at(-1)).toBe(1000);
  });

  it("sends parts in parallel up to the concurrency, retries a failing part, and reports progress in order", async () => {
    fake = await startFakeEasel({ kind: "s3", partSize: 2 * MiB });
    const data = bytesOf(13 * MiB + 7); // 7 parts
    fake.fault = (req, n) => (req.path.endsWith("/part/" + [...fake!.uploads.keys()][0] + "/3") && n <= 2 ? { status: 500 } : null);
    const progress: number[] = [];
    const asset = await uploadFile(createClient({ baseUrl: fake.origin, retry: fast }), { workspace: "ws", blob: new Blob([data]), concurrency: 2, onProgress: (sent) => progress.push(sent) });
    expect(asset.md5).toBe(md5(data));
    expect(asset.size).toBe(data.length);
    expect(partPuts(fake)).toHaveLength(7 + 2);
    expect(fake.inFlightMax).toBeLessThanOrEqual(2);
    expect(fake.inFlightMax).toBe(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(data.length);
  });

  it("reads a stream once, in pieces of any size", async () => {
    fake = await startFakeEasel({ kind: "s3", partSize: 2 * MiB });
    const data = bytesOf(5 * MiB + 123);
    async function* pieces() {
      for (let at = 0; at < data.length; at += 777_777) yield data.subarray(at, at + 777_777);
    }
    const asset = await uploadFile(createClient({ baseUrl: fake.origin, retry: fast }), { workspace: "ws", stream: pieces(), size: data.length });
    expect(asset.md5).toBe(md5(data));
  });

  it("throws checksum_mismatch when the stored bytes are not the source's", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    const f = fake;
    const data = bytesOf(1000);
    // Storage holds other bytes of the same length by the time the upload completes.
    f.fault = (req) => {
      if (req.path.endsWith("upload_complete")) for (const u of f.uploads.values()) u.single = bytesOf(1000);
      return null;
    };
    const err = await uploadFile(createClient({ baseUrl: f.origin, retry: fast }), { workspace: "ws", blob: new Blob([data]) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EaselError);
    expect(err).toMatchObject({ code: "checksum_mismatch", extensions: { expected_md5: md5(data) } });
  });

  it("resumes from a ResumeStore: one reservation, no stored part sent again", async () => {
    fake = await startFakeEasel({ kind: "s3", partSize: 2 * MiB });
    const data = bytesOf(12 * MiB); // 6 parts
    let saved: ResumeState | null = null;
    const resume = { load: () => saved, save: (s: ResumeState) => void (saved = s) };
    const client = createClient({ baseUrl: fake.origin, retry: fast });
    const controller = new AbortController();
    const first = await uploadFile(client, {
      workspace: "ws",
      blob: new Blob([data]),
      concurrency: 1,
      resume,
      signal: controller.signal,
      onProgress: (sent) => sent >= 6 * MiB && controller.abort(),
    }).catch((e: unknown) => e);
    expect(first).toMatchObject({ code: "aborted" });
    const sentBefore = partPuts(fake).length;
    expect(sentBefore).toBeGreaterThanOrEqual(3);
    expect(sentBefore).toBeLessThan(6);
    expect(fake.seen.some((s) => s.path.endsWith("upload_complete"))).toBe(false);

    const asset = await uploadFile(client, { workspace: "ws", blob: new Blob([data]), resume });
    expect(asset.md5).toBe(md5(data));
    expect(fake.seen.filter((s) => s.path.endsWith("upload_prepare"))).toHaveLength(1);
    const numbers = partPuts(fake).map((s) => Number(s.path.split("/").at(-1)));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(new Set(numbers)).toEqual(new Set([1, 2, 3, 4, 5, 6]));
  });

  it("completes an upload an earlier run finished storing (the parts listing is gone) without a new reservation", async () => {
    fake = await startFakeEasel({ kind: "s3", partSize: 2 * MiB });
    const data = bytesOf(6 * MiB);
    let saved: ResumeState | null = null;
    const resume = { load: () => saved, save: (s: ResumeState) => void (saved = s) };
    const client = createClient({ baseUrl: fake.origin, retry: fast });
    const first = await uploadFile(client, { workspace: "ws", blob: new Blob([data]), resume });
    // The process died after upload_complete, before it forgot the state: the same call again.
    const second = await uploadFile(client, { workspace: "ws", blob: new Blob([data]), resume });
    expect(second.token).toBe(first.token);
    expect(fake.seen.filter((s) => s.path.endsWith("upload_prepare"))).toHaveLength(1);
    expect(partPuts(fake)).toHaveLength(3);
  });
});

describe("beforeComplete", () => {
  it("gets the md5 computed on the way, and stops the upload before upload_complete when it throws", async () => {
    fake = await startFakeEasel({ kind: "s3", partSize: 2 * MiB });
    const data = bytesOf(5 * MiB);
    const seenMd5: string[] = [];
    const err = await uploadFile(createClient({ baseUrl: fake.origin, retry: fast }), {
      workspace: "ws",
      blob: new Blob([data]),
      beforeComplete: (m) => {
        seenMd5.push(m);
        throw new Error("a duplicate");
      },
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe("a duplicate");
    expect(seenMd5).toEqual([md5(data)]);
    expect(fake.seen.some((s) => s.path.endsWith("upload_complete"))).toBe(false);
  });
});

describe("uploadFile, gcs kind", () => {
  it("sends chunks to a resumable session and goes on from what the session holds after a cut connection", async () => {
    fake = await startFakeEasel({ kind: "gcs" });
    const data = bytesOf(20 * MiB + 5); // three 8 MiB chunks
    let cut = false;
    fake.fault = (req) => {
      if (!cut && req.method === "PUT" && req.path.startsWith("/storage/gcs-session/") && String(req.headers["content-range"]).startsWith("bytes 8388608-")) {
        cut = true;
        return "drop";
      }
      return null;
    };
    const progress: number[] = [];
    const asset = await uploadFile(createClient({ baseUrl: fake.origin, retry: fast }), { workspace: "ws", blob: new Blob([data]), onProgress: (sent) => progress.push(sent) });
    expect(cut).toBe(true);
    expect(asset.md5).toBe(md5(data));
    const ranges = fake.seen.filter((s) => s.path.startsWith("/storage/gcs-session/")).map((s) => s.headers["content-range"]);
    expect(ranges).toEqual(["bytes 0-8388607/20971525", "bytes 8388608-16777215/20971525", "bytes */20971525", "bytes 8388608-16777215/20971525", "bytes 16777216-20971524/20971525"]);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(data.length);
  });

  it("resumes a session from its offset: bytes stored before are not sent again", async () => {
    fake = await startFakeEasel({ kind: "gcs" });
    const data = bytesOf(17 * MiB);
    let saved: ResumeState | null = null;
    const resume = { load: () => saved, save: (s: ResumeState) => void (saved = s) };
    const client = createClient({ baseUrl: fake.origin, retry: fast });
    const controller = new AbortController();
    await uploadFile(client, { workspace: "ws", blob: new Blob([data]), resume, signal: controller.signal, onProgress: (sent) => sent >= 8 * MiB && controller.abort() }).catch(() => undefined);
    expect(saved!.gcsSession).toMatch(/gcs-session/);
    const before = fake.seen.filter((s) => s.method === "PUT").reduce((n, s) => n + s.bytes, 0);
    const asset = await uploadFile(client, { workspace: "ws", blob: new Blob([data]), resume });
    expect(asset.md5).toBe(md5(data));
    const after = fake.seen.filter((s) => s.method === "PUT").reduce((n, s) => n + s.bytes, 0);
    expect(after - before).toBe(17 * MiB - 8 * MiB);
    expect(fake.seen.filter((s) => s.path.startsWith("/storage/gcs-start/"))).toHaveLength(1);
  });
});
