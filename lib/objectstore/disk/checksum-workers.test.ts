import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { CHECKSUM_ALGORITHMS, checksumOf, crcLibraryPath } from "./checksum-algorithms";
import { notePartCommitted, wholeDigest } from "./part-digest";
import { openWorkerSink } from "./write-worker";

// The checksums S3 requests name are computed on the worker threads (write worker: a body's; digest
// worker: a multipart object's full-object CRC), which load the CRC library by path.
const MiB = 1024 * 1024;

describe("checksums on the workers", () => {
  it("finds the CRC library's file for the workers", () => {
    expect(crcLibraryPath()).toMatch(/@aws-sdk\/checksums\/.*crc.*\.js$/);
  });

  it.each(CHECKSUM_ALGORITHMS)("the write worker computes %s beside md5, as this thread does", async (algorithm) => {
    const bytes = crypto.randomBytes(3 * MiB + 17);
    const file = path.join(tempDir("checksum-worker"), "body");
    const fd = fs.openSync(file, "w");
    try {
      const sink = openWorkerSink(fd, { sha256: false, checksum: algorithm, transfer: false });
      expect(sink).not.toBeNull();
      for (let at = 0; at < bytes.length; at += 256 * 1024) await sink!.push(bytes.subarray(at, at + 256 * 1024));
      const done = await sink!.finish();
      expect(done.checksum?.toString("base64")).toBe((await checksumOf(algorithm, bytes)).toString("base64"));
      expect(done.md5.toString("hex")).toBe(crypto.createHash("md5").update(bytes).digest("hex"));
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it("the digest worker's running full-object CRC follows the parts, and a completion sent again reads them afresh", async () => {
    const dir = tempDir("checksum-digest");
    const parts = [crypto.randomBytes(2 * MiB), crypto.randomBytes(MiB + 5), crypto.randomBytes(777)];
    const files = parts.map((bytes, i) => {
      const file = path.join(dir, `${i + 1}.part`);
      fs.writeFileSync(file, bytes);
      return { path: file };
    });
    const uploadId = crypto.randomBytes(12).toString("hex");
    notePartCommitted(uploadId, 1, files[0].path, "crc32c");
    notePartCommitted(uploadId, 2, files[1].path, "crc32c");
    const expected = (await checksumOf("crc32c", Buffer.concat(parts))).toString("base64");
    const md5 = crypto.createHash("md5").update(Buffer.concat(parts)).digest("hex");
    for (let attempt = 0; attempt < 2; attempt++) {
      const whole = await wholeDigest(uploadId, files, "crc32c");
      expect(whole.checksum?.toString("base64")).toBe(expected);
      expect(whole.md5).toBe(md5);
    }
    // Without a checksum asked for, only the md5 is computed.
    expect(await wholeDigest(uploadId, files)).toEqual({ md5, checksum: null });
  });
});
