import crypto from "node:crypto";
import { Crc32, Crc32c, Crc64Nvme } from "@aws-sdk/checksums/crc";

/**
 * What the storage fuzzer needs to send S3 requests that are right (so that a refusal comes from
 * the one thing it got wrong on purpose): the x-amz-checksum-* values S3 clients compute (the
 * AWS SDK's own CRC library, node:crypto for the SHAs), and aws-chunked bodies framed as the SDKs
 * frame them, unsigned with a trailing checksum or signed chunk by chunk (SigV4 streaming).
 */

export const CHECKSUMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;
export type Checksum = (typeof CHECKSUMS)[number];

export async function checksumOf(algorithm: Checksum, bytes: Uint8Array): Promise<string> {
  if (algorithm === "sha1" || algorithm === "sha256") return crypto.createHash(algorithm).update(bytes).digest("base64");
  const crc = algorithm === "crc32" ? new Crc32() : algorithm === "crc32c" ? new Crc32c() : new Crc64Nvme();
  crc.update(bytes);
  return Buffer.from(await crc.digest()).toString("base64");
}

/** A value of the right length and alphabet that is not the bytes' checksum (every bit of the real one flipped). */
export function wrongChecksum(right: string): string {
  return Buffer.from(Buffer.from(right, "base64").map((b) => b ^ 0xff)).toString("base64");
}

/** What signs a streaming body's chunks: the request's signing key, time and scope, and its own signature. */
export type StreamSigning = { signingKey: Buffer; amzDate: string; scope: string; seedSignature: string };

const hmac = (key: Buffer | string, text: string) => crypto.createHmac("sha256", key).update(text).digest();
const sha256Hex = (bytes: Uint8Array | string) => crypto.createHash("sha256").update(bytes).digest("hex");
const EMPTY_SHA256 = sha256Hex("");

export function signingKey(secret: string, date: string, region: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), "s3"), "aws4_request");
}

/** SigV4 streaming: the request's date, scope and signature, read from what the signer produced. */
export function streamSigning(secret: string, region: string, headers: Headers): StreamSigning | null {
  const auth = headers.get("authorization") ?? "";
  const seedSignature = /Signature=([0-9a-f]{64})/.exec(auth)?.[1];
  const amzDate = headers.get("x-amz-date");
  if (!seedSignature || !amzDate) return null;
  const date = amzDate.slice(0, 8);
  return { signingKey: signingKey(secret, date, region), amzDate, scope: `${date}/${region}/s3/aws4_request`, seedSignature };
}

/** Ways of spoiling a signed body after signing it: each must make the store refuse it. */
export const SIGNED_TAMPERS = ["none", "chunk-signature", "data-byte", "final-signature", "trailer-signature", "seed", "unsigned-chunk"] as const;
export type SignedTamper = (typeof SIGNED_TAMPERS)[number];

/** Splits `data` at the given cut points (kept in range), giving at least one non-empty chunk when data is non-empty. */
export function splitAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % Math.max(1, data.length)).filter((c) => c > 0))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, data.length]) {
    if (p > from) chunks.push(data.subarray(from, p));
    from = p;
  }
  return chunks;
}

const trailerLines = (trailers: [string, string][]) => trailers.map(([n, v]) => `${n}:${v}\r\n`).join("");

/** `STREAMING-UNSIGNED-PAYLOAD-TRAILER`: the chunks, a zero chunk, the trailing headers, an empty line. */
export function frameUnsigned(chunks: Uint8Array[], trailers: [string, string][]): Uint8Array {
  const parts: Buffer[] = [];
  for (const c of chunks) parts.push(Buffer.from(`${c.length.toString(16)}\r\n`), Buffer.from(c), Buffer.from("\r\n"));
  parts.push(Buffer.from(`0\r\n${trailerLines(trailers)}\r\n`));
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * `STREAMING-AWS4-HMAC-SHA256-PAYLOAD` (no trailers) or `…-PAYLOAD-TRAILER`: every chunk signed
 * over the previous signature (the first over the request's), the final empty chunk too, and the
 * trailer over the last chunk's signature. `tamper` spoils one thing after signing.
 */
export function frameSigned(chunks: Uint8Array[], signing: StreamSigning, trailers: [string, string][] | null, tamper: SignedTamper): Uint8Array {
  const parts: Buffer[] = [];
  let previous = tamper === "seed" ? sha256Hex(signing.seedSignature) : signing.seedSignature;
  const sign = (stringToSign: string[]) => hmac(signing.signingKey, stringToSign.join("\n")).toString("hex");
  const flip = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);
  const all = [...chunks, new Uint8Array(0)];
  for (const [i, chunk] of all.entries()) {
    const signature = sign(["AWS4-HMAC-SHA256-PAYLOAD", signing.amzDate, signing.scope, previous, EMPTY_SHA256, sha256Hex(chunk)]);
    previous = signature;
    const last = i === all.length - 1;
    const spoilSignature = (tamper === "chunk-signature" && i === 0 && !last) || (tamper === "final-signature" && last);
    const extension = tamper === "unsigned-chunk" && i === 0 ? "" : `;chunk-signature=${spoilSignature ? flip(signature) : signature}`;
    const bytes = Buffer.from(chunk);
    if (tamper === "data-byte" && i === 0 && bytes.length) bytes[0] ^= 1;
    parts.push(Buffer.from(`${chunk.length.toString(16)}${extension}\r\n`), bytes, Buffer.from(last ? "" : "\r\n"));
  }
  if (trailers) {
    const canonical = trailers.map(([n, v]) => `${n}:${v}\n`).join("");
    const signature = sign(["AWS4-HMAC-SHA256-TRAILER", signing.amzDate, signing.scope, previous, sha256Hex(canonical)]);
    parts.push(Buffer.from(`${trailerLines(trailers)}x-amz-trailer-signature:${tamper === "trailer-signature" ? flip(signature) : signature}\r\n`));
  }
  parts.push(Buffer.from("\r\n"));
  return new Uint8Array(Buffer.concat(parts));
}
