import crypto from "node:crypto";
import fs from "node:fs";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { layout } from "./layout";
import { BodyError, receiveToTemp } from "./receive";
import { openWorkerSink } from "./write-worker";

const MiB = 1024 * 1024;

/** A body of `total` bytes in chunks of `chunk` bytes, each chunk owning its memory (as a request's do). */
function chunks(total: number, chunk: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < total; at += chunk) {
    const owned = new Uint8Array(Math.min(chunk, total - at));
    crypto.randomFillSync(owned);
    out.push(owned);
  }
  return out;
}

async function* stream(parts: Uint8Array[], failAfter?: number): AsyncGenerator<Uint8Array> {
  for (const [i, p] of parts.entries()) {
    if (i === failAfter) throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    yield p;
  }
}

const digest = (alg: string, parts: Uint8Array[]) => {
  const h = crypto.createHash(alg);
  for (const p of parts) h.update(p);
  return h.digest("hex");
};

describe("receiveToTemp (hashed and written on the write worker)", () => {
  it("stores a multi-batch body whole, with its md5 and sha256, flushed under .tmp", async () => {
    const lay = layout(tempDir("receive"));
    const parts = chunks(3 * MiB + 12_345, 64 * 1024);
    const md5 = digest("md5", parts);
    const sha = digest("sha256", parts);
    const expected = Buffer.concat(parts.map((p) => Buffer.from(p))); // copied before the chunks move to the worker
    const received = await receiveToTemp(lay, stream(parts), { maxBytes: 10 * MiB, expectedLength: expected.length, sha256: true, transfer: true });
    expect(received.size).toBe(expected.length);
    expect(received.md5.toString("hex")).toBe(md5);
    expect(received.sha256).toBe(sha);
    expect(fs.readFileSync(received.path).equals(expected)).toBe(true);
  });

  it("copies chunks it was not given to keep: the caller's buffers stay readable", async () => {
    const lay = layout(tempDir("receive-copy"));
    const whole = crypto.randomBytes(2 * MiB + 7);
    // Views into one shared buffer, and a caller that keeps reading it afterwards.
    const views = [whole.subarray(0, MiB), whole.subarray(MiB, 2 * MiB), whole.subarray(2 * MiB)];
    const received = await receiveToTemp(lay, stream(views), { maxBytes: 10 * MiB, expectedLength: null, sha256: false });
    expect(whole.length).toBe(2 * MiB + 7);
    expect(received.md5.toString("hex")).toBe(crypto.createHash("md5").update(whole).digest("hex"));
    expect(fs.readFileSync(received.path).equals(whole)).toBe(true);
  });

  it("leaves nothing behind when the body breaks off, is too long or too short", async () => {
    const lay = layout(tempDir("receive-fail"));
    const cases: [AsyncIterable<Uint8Array>, number | null, BodyError["reason"]][] = [
      [stream(chunks(3 * MiB, 64 * 1024), 40), null, "aborted"],
      [stream(chunks(2 * MiB, 64 * 1024)), MiB, "too_large"],
      [stream(chunks(MiB, 64 * 1024)), 2 * MiB, "incomplete"],
    ];
    for (const [body, expectedLength, reason] of cases) {
      await expect(receiveToTemp(lay, body, { maxBytes: 10 * MiB, expectedLength, sha256: false, transfer: true })).rejects.toMatchObject({ reason });
    }
    expect(fs.readdirSync(lay.tmpDir)).toEqual([]);
  });

  it("reports a failed write with the file system's code, and stops cleanly", async () => {
    const file = `${tempDir("receive-ro")}/readonly`;
    fs.writeFileSync(file, "");
    const fd = fs.openSync(file, "r"); // writes to it fail with EBADF
    try {
      const sink = openWorkerSink(fd, { sha256: false, transfer: true });
      expect(sink).not.toBeNull();
      let failed: unknown = null;
      try {
        for (const c of chunks(4 * MiB, 256 * 1024)) await sink!.push(c);
        await sink!.finish();
      } catch (err) {
        failed = err;
      }
      expect(failed).toMatchObject({ code: "EBADF" });
      await sink!.discard();
    } finally {
      fs.closeSync(fd);
    }
  });

  describe("from a Node stream (a request read below its web stream)", () => {
    /** A Node stream of `parts` that, at `failAt`, is destroyed: with an error, or closed without one. */
    function nodeStream(parts: Uint8Array[], failAt?: { index: number; error?: Error }): Readable {
      let i = 0;
      return new Readable({
        read() {
          if (failAt && i === failAt.index) return void this.destroy(failAt.error);
          this.push(i < parts.length ? parts[i++] : null);
        },
      });
    }

    it("stores a body of many batches whole (the stream pauses while the worker is busy), md5 and sha256", async () => {
      const lay = layout(tempDir("receive-node"));
      const parts = chunks(5 * MiB + 321, 64 * 1024);
      const expected = Buffer.concat(parts.map((p) => Buffer.from(p)));
      const received = await receiveToTemp(lay, nodeStream(parts), { maxBytes: 10 * MiB, expectedLength: expected.length, sha256: true, transfer: true });
      expect(received.md5.toString("hex")).toBe(crypto.createHash("md5").update(expected).digest("hex"));
      expect(received.sha256).toBe(crypto.createHash("sha256").update(expected).digest("hex"));
      expect(fs.readFileSync(received.path).equals(expected)).toBe(true);
    });

    it("takes an empty body", async () => {
      const received = await receiveToTemp(layout(tempDir("receive-node-empty")), nodeStream([]), { maxBytes: MiB, expectedLength: 0, sha256: false, transfer: true });
      expect(received.size).toBe(0);
      expect(received.md5.toString("hex")).toBe(crypto.createHash("md5").digest("hex"));
    });

    it("leaves nothing behind when the client resets, closes early, or sends too much; a stream left early is destroyed", async () => {
      const lay = layout(tempDir("receive-node-fail"));
      const reset = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
      const tooLong = nodeStream(chunks(3 * MiB, 64 * 1024));
      const cases: [Readable, number | null, BodyError["reason"]][] = [
        [nodeStream(chunks(3 * MiB, 64 * 1024), { index: 30, error: reset }), null, "aborted"],
        [nodeStream(chunks(3 * MiB, 64 * 1024), { index: 20 }), null, "aborted"],
        [tooLong, MiB, "too_large"],
        [nodeStream(chunks(MiB, 64 * 1024)), 2 * MiB, "incomplete"],
      ];
      for (const [body, expectedLength, reason] of cases) {
        await expect(receiveToTemp(lay, body, { maxBytes: 10 * MiB, expectedLength, sha256: false, transfer: true })).rejects.toMatchObject({ reason });
      }
      expect(tooLong.destroyed).toBe(true);
      expect(fs.readdirSync(lay.tmpDir)).toEqual([]);
    });
  });
});
