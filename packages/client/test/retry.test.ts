import { afterEach, describe, expect, it } from "vitest";
import { createClient, EaselError } from "../src/index";
import { parseRetryAfter, retryDelay } from "../src/retry";
import { startFakeEasel, type FakeEasel } from "./fake-easel";

const fast = { baseDelayMs: 1, maxDelayMs: 5 };
let fake: FakeEasel | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

describe("backoff", () => {
  it("waits a random time up to base × 2^attempt, capped", () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(0, { ...opts, random: () => 0.999 })).toBe(99);
    expect(retryDelay(3, { ...opts, random: () => 0.5 })).toBe(400);
    expect(retryDelay(10, { ...opts, random: () => 0.999 })).toBe(999);
    expect(retryDelay(4, { ...opts, random: () => 0 })).toBe(0);
  });

  it("honours Retry-After (seconds or a date), capped by maxDelayMs", () => {
    expect(retryDelay(0, { random: () => 0 }, "3")).toBe(3000);
    expect(retryDelay(0, { random: () => 0.5 }, "2")).toBe(2500);
    expect(retryDelay(0, { maxDelayMs: 1000, random: () => 0 }, "120")).toBe(1000);
    expect(parseRetryAfter(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8);
    expect(parseRetryAfter("soon")).toBeNull();
  });
});

describe("API calls", () => {
  it("retries 5xx answers and sends every attempt of a POST with one Idempotency-Key", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = (req, n) => (req.path.endsWith("upload_prepare") && n <= 2 ? { status: 503 } : null);
    const retries: string[] = [];
    const client = createClient({ baseUrl: fake.origin, token: "easel_x", retry: { ...fast, onRetry: (i) => retries.push(i.reason) } });
    const answer = await client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 3 } } });
    expect(answer.data.storage_provider).toBe("s3");
    const attempts = fake.seen.filter((s) => s.path.endsWith("upload_prepare"));
    expect(attempts).toHaveLength(3);
    expect(retries).toEqual(["HTTP 503", "HTTP 503"]);
    const keys = new Set(attempts.map((a) => a.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/.{8,}/);
    expect(attempts.every((a) => a.headers.authorization === "Bearer easel_x")).toBe(true);
  });

  it("waits what a 429's Retry-After says", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = (req, n) => (n === 1 ? { status: 429, headers: { "retry-after": "1" }, body: { errors: [{ message: "slow down", extensions: { code: "rate_limited" } }] } } : null);
    const delays: number[] = [];
    const client = createClient({ baseUrl: fake.origin, retry: { random: () => 0, onRetry: (i) => delays.push(i.delayMs) } });
    await client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 3 } } });
    expect(delays).toEqual([1000]);
  });

  it("retries a connection cut before the answer", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = (req, n) => (n === 1 ? "drop" : null);
    const reasons: string[] = [];
    const client = createClient({ baseUrl: fake.origin, retry: { ...fast, onRetry: (i) => reasons.push(i.reason) } });
    const answer = await client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 3 } } });
    expect(answer.data.signed_storage_id).toMatch(/^sid-/);
    expect(reasons).toHaveLength(1);
  });

  it("gives up after the retries with the last answer's error envelope", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = () => ({ status: 503, body: { errors: [{ message: "storage is down", extensions: { code: "storage_unavailable", attempt: 1 } }] } });
    const client = createClient({ baseUrl: fake.origin, retry: { ...fast, retries: 2 } });
    const err = await client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 3 } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EaselError);
    expect(err).toMatchObject({ status: 503, code: "storage_unavailable", message: "storage is down", extensions: { code: "storage_unavailable", attempt: 1 } });
    expect(fake.seen).toHaveLength(3);
  });

  it("does not retry a 4xx, and throws its code", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = () => ({ status: 422, body: { errors: [{ message: "size must be above 0", extensions: { code: "validation_failed", field: "size" } }] } });
    const client = createClient({ baseUrl: fake.origin, retry: fast });
    const err = await client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 0 } } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: "validation_failed", extensions: { field: "size" } });
    expect(fake.seen).toHaveLength(1);
  });

  it("turns a network error that outlasts the retries into a network_error", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = () => "drop";
    const client = createClient({ baseUrl: fake.origin, retry: { ...fast, retries: 1 } });
    const err = await client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 3 } } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 0, code: "network_error" });
    expect(fake.seen).toHaveLength(2);
  });

  it("stops a call whose signal fires, also while it waits for an answer", async () => {
    fake = await startFakeEasel({ kind: "s3" });
    fake.fault = () => "hang";
    const client = createClient({ baseUrl: fake.origin });
    const controller = new AbortController();
    const pending = client.prepareUpload({ path: { slug: "ws" }, body: { asset: { media_type: "text/plain", size: 3 } }, signal: controller.signal });
    while (fake.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name === "AbortError" || (err as EaselError).code === "aborted").toBe(true);
    expect(fake.seen).toHaveLength(1);
  });

  it("refuses a baseUrl that is not http(s)", () => {
    expect(() => createClient({ baseUrl: "ftp://x" })).toThrow(EaselError);
  });
});
