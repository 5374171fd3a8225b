import crypto from "node:crypto";
import { Crc32, Crc32c, Crc64Nvme } from "@aws-sdk/checksums/crc";
import { log } from "../../log/logger.mjs";

/**
 * The checksums S3 clients may ask the store to verify and keep (`x-amz-checksum-<algorithm>`).
 * The CRCs come from the AWS SDK's own checksum library (the implementations S3 clients use
 * to compute them), the SHAs from node:crypto: the store writes none of them itself.
 */
export const CHECKSUM_ALGORITHMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** Bytes of each algorithm's digest: a declared value of another length is not a value at all. */
export const DIGEST_BYTES: Record<ChecksumAlgorithm, number> = { crc32: 4, crc32c: 4, crc64nvme: 8, sha1: 20, sha256: 32 };

export const isChecksumAlgorithm = (name: string): name is ChecksumAlgorithm => (CHECKSUM_ALGORITHMS as readonly string[]).includes(name);

/**
 * A checksum an object keeps (S3's x-amz-checksum-*): `value` is base64. FULL_OBJECT covers the
 * object's bytes; COMPOSITE (multipart) is the checksum of its parts' checksums, suffixed "-N".
 */
export type StoredChecksum = { algorithm: ChecksumAlgorithm; value: string; type: "FULL_OBJECT" | "COMPOSITE" };

/** A checksum being computed over bytes fed in order. */
export type RunningChecksum = { update(bytes: Uint8Array): void; digest(): Promise<Buffer> };

/** Starts `algorithm` on this thread (where no worker runs, and for small XML bodies). */
export function startChecksum(algorithm: ChecksumAlgorithm): RunningChecksum {
  if (algorithm === "sha1" || algorithm === "sha256") {
    const hash = crypto.createHash(algorithm);
    return { update: (bytes) => hash.update(bytes), digest: async () => hash.digest() };
  }
  const crc = algorithm === "crc32" ? new Crc32() : algorithm === "crc32c" ? new Crc32c() : new Crc64Nvme();
  return { update: (bytes) => crc.update(bytes), digest: async () => Buffer.from(await crc.digest()) };
}

export async function checksumOf(algorithm: ChecksumAlgorithm, bytes: Uint8Array): Promise<Buffer> {
  const sum = startChecksum(algorithm);
  sum.update(bytes);
  return sum.digest();
}

/**
 * The CRC library's file, for worker threads: their code is evaluated from a string (no file in any
 * bundle), so they load the library by path. Next.js's bundler replaces a `require.resolve` it can
 * see with a module id of its own (or, for one it cannot follow, a throw), so the resolving
 * `require` is taken from Node at run time, out of the bundler's sight. It resolves from this
 * module's source file (`import.meta.url` is that file under vitest, tsx and Next.js's server
 * bundle alike), that is from the project's node_modules. Null when it cannot be found: a CRC is
 * then computed on the caller's thread.
 */
export function crcLibraryPath(): string | null {
  try {
    const { createRequire: requireFrom } = process.getBuiltinModule("node:module");
    return requireFrom(import.meta.url).resolve("@aws-sdk/checksums/crc");
  } catch (err) {
    log().warn({ component: "objectstore", err }, "the CRC library was not found for the write workers: CRC checksums are computed on the request thread");
    return null;
  }
}

/**
 * `startChecksum` for a worker's evaluated source (it cannot import this module): defines
 * `startChecksum(algorithm)` there, loading the CRC library from `workerData.crcLibrary`.
 */
export const WORKER_CHECKSUM_SOURCE = `
let crcLibrary = null;
function startChecksum(algorithm) {
  if (algorithm === "sha1" || algorithm === "sha256") {
    const hash = require("node:crypto").createHash(algorithm);
    return { update: (bytes) => hash.update(bytes), digest: async () => hash.digest() };
  }
  const path = require("node:worker_threads").workerData?.crcLibrary;
  if (!path) throw new Error("the CRC library was not found");
  crcLibrary ??= require(path);
  const Algorithm = { crc32: crcLibrary.Crc32, crc32c: crcLibrary.Crc32c, crc64nvme: crcLibrary.Crc64Nvme }[algorithm];
  if (!Algorithm) throw new Error("unknown checksum algorithm " + algorithm);
  const crc = new Algorithm();
  return { update: (bytes) => crc.update(bytes), digest: async () => Buffer.from(await crc.digest()) };
}
`;
