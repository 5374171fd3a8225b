import crypto from "node:crypto";
import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { tempDir } from "../testing/fixtures";
import { checksumOf } from "./checksum-algorithms";
import { layout } from "./layout";
import { receiveToTemp } from "./receive";

// Where no write worker can run, receiveToTemp hashes on its own thread: the checksum a request
// names is computed there too.
vi.mock("./write-worker", () => ({ openWorkerSink: () => null }));

describe("receiveToTemp without a write worker", () => {
  it.each(["crc32", "crc64nvme", "sha1"] as const)("computes %s with md5 on this thread", async (algorithm) => {
    const lay = layout(tempDir("checksum-fallback"));
    const bytes = crypto.randomBytes(2 * 1024 * 1024 + 3);
    async function* body() {
      yield bytes.subarray(0, 1000);
      yield bytes.subarray(1000);
    }
    const received = await receiveToTemp(lay, body(), { maxBytes: 10 * 1024 * 1024, expectedLength: bytes.length, sha256: false, checksum: algorithm });
    expect(received.checksum?.equals(await checksumOf(algorithm, bytes))).toBe(true);
    expect(received.md5.toString("hex")).toBe(crypto.createHash("md5").update(bytes).digest("hex"));
    expect(fs.readFileSync(received.path).equals(bytes)).toBe(true);
  });
});
