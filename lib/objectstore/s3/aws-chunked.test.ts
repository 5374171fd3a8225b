import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { Readable } from "node:stream";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checksumOf } from "../disk/checksum-algorithms";
import { headObject } from "../disk/objects";
import { BodyRefused } from "../disk/receive";
import { md5Hex, movableClock, startS3Store, storedBytes, tempDir, tmpLeftovers, type StoreServer } from "../testing/fixtures";
import { decodeAwsChunked } from "./aws-chunked";

// aws-chunked bodies signed chunk by chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]), built
// here as SigV4 streaming defines them: the request's signature seeds a chain of chunk signatures,
// and a trailer is signed over the last of them. A wrong signature anywhere, or broken framing,
// stores nothing.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
let store: StoreServer;

class Sha256 {
  private h: crypto.Hash | crypto.Hmac;
  constructor(secret?: string | Uint8Array) {
    this.h = secret ? crypto.createHmac("sha256", secret) : crypto.createHash("sha256");
  }
  update(data: string | Uint8Array) {
    this.h.update(data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
  reset() {}
}

const signer = new SignatureV4({ credentials, region: "us-east-1", service: "s3", sha256: Sha256 as never, uriEscapePath: false, applyChecksum: false });
const sha256Hex = (data: string | Uint8Array) => crypto.createHash("sha256").update(data).digest("hex");
const PLACEHOLDER = "0".repeat(64);

type Frame = { data: Buffer; signature: string };
type Built = { frames: Frame[]; trailer: string; trailerSignature: string };

/** The encoded body: chunks with their signatures, the final chunk, the trailer. */
function encode(built: Built, signed: boolean): Buffer {
  const parts: Buffer[] = [];
  for (const f of built.frames) {
    const ext = signed ? `;chunk-signature=${f.signature}` : "";
    parts.push(Buffer.from(`${f.data.length.toString(16)}${ext}\r\n`));
    // The final chunk (no bytes) is followed by the trailer and the empty line that ends the body.
    if (f.data.length) parts.push(f.data, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(built.trailer));
  if (built.trailerSignature) parts.push(Buffer.from(`x-amz-trailer-signature:${built.trailerSignature}\r\n`));
  parts.push(Buffer.from("\r\n"));
  return Buffer.concat(parts);
}

/**
 * A signed aws-chunked PUT of `data` in chunks of `chunkSize`: headers (seed signature in
 * Authorization) and body (each chunk signed over the previous signature; the trailer, if any,
 * over the final chunk's).
 */
async function signedChunkedPut(key: string, data: Buffer, opts: { chunkSize?: number; trailer?: "crc32" | "sha256"; trailerValue?: string; payload?: string; cut?: number } = {}) {
  const chunkSize = opts.chunkSize ?? 64 * 1024;
  const pieces: Buffer[] = [];
  for (let at = 0; at < data.length; at += chunkSize) pieces.push(data.subarray(at, at + chunkSize));
  pieces.push(Buffer.alloc(0));
  const trailerValue = opts.trailer ? (opts.trailerValue ?? (await checksumOf(opts.trailer, data)).toString("base64")) : null;
  const trailer = opts.trailer ? `x-amz-checksum-${opts.trailer}:${trailerValue}\r\n` : "";
  const draft: Built = { frames: pieces.map((d) => ({ data: d, signature: PLACEHOLDER })), trailer, trailerSignature: opts.trailer ? PLACEHOLDER : "" };
  const url = new URL(`${store.endpoint}/easel/${key}`);
  const signingDate = clock();
  const payload = opts.payload ?? (opts.trailer ? "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" : "STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
  const headers: Record<string, string> = {
    host: url.host,
    "x-amz-content-sha256": payload,
    "content-encoding": "aws-chunked",
    "x-amz-decoded-content-length": String(data.length),
    "content-length": String(encode(draft, true).length - (opts.cut ?? 0)),
    ...(opts.trailer ? { "x-amz-trailer": `x-amz-checksum-${opts.trailer}` } : {}),
  };
  const request = await signer.sign({ method: "PUT", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query: {}, headers, body: undefined }, { signingDate });
  const seed = /Signature=([0-9a-f]{64})/.exec(request.headers.authorization)![1];
  const amzDate = request.headers["x-amz-date"];
  const scope = `${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
  let previous = seed;
  const frames: Frame[] = [];
  for (const piece of pieces) {
    const stringToSign = ["AWS4-HMAC-SHA256-PAYLOAD", amzDate, scope, previous, sha256Hex(""), sha256Hex(piece)].join("\n");
    previous = await signer.sign(stringToSign, { signingDate });
    frames.push({ data: piece, signature: previous });
  }
  let trailerSignature = "";
  if (opts.trailer) {
    const canonical = `x-amz-checksum-${opts.trailer}:${trailerValue}\n`;
    trailerSignature = await signer.sign(["AWS4-HMAC-SHA256-TRAILER", amzDate, scope, previous, sha256Hex(canonical)].join("\n"), { signingDate });
  }
  return { url, headers: request.headers, built: { frames, trailer, trailerSignature } satisfies Built };
}

function send(url: URL, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "PUT", headers: { ...headers, "content-length": String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const errorCode = (text: string) => /<Code>([^<]*)<\/Code>/.exec(text)?.[1];

async function expectNothingStored(key: string) {
  expect(await headObject(store.lay, "easel", key)).toBeNull();
  expect(tmpLeftovers(store.lay)).toEqual([]);
}

beforeAll(async () => {
  store = await startS3Store({ root: tempDir("aws-chunked"), credentials: async () => credentials, clock });
  const put = await signer.sign(
    { method: "PUT", protocol: "http:", hostname: "127.0.0.1", port: Number(new URL(store.endpoint).port), path: "/storage/s3/easel", query: {}, headers: { host: new URL(store.endpoint).host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" } },
    { signingDate: clock() },
  );
  expect((await send(new URL(`${store.endpoint}/easel`), put.headers, Buffer.alloc(0))).status).toBe(200);
});

afterAll(async () => {
  await store?.close();
});

describe("signed aws-chunked bodies", () => {
  it("STREAMING-AWS4-HMAC-SHA256-PAYLOAD: every chunk's signature checks, the bytes are stored decoded", async () => {
    const data = crypto.randomBytes(200_000);
    const { url, headers, built } = await signedChunkedPut("chunked/signed", data);
    const res = await send(url, headers, encode(built, true));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.etag).toBe(`"${md5Hex(data)}"`);
    expect(md5Hex(await storedBytes(store.lay, "chunked/signed"))).toBe(md5Hex(data));
    // aws-chunked was how the bytes travelled, not what they are.
    expect((await headObject(store.lay, "easel", "chunked/signed"))?.headers["content-encoding"]).toBeUndefined();
  });

  it("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: the signed trailer's checksum is verified and kept", async () => {
    const data = crypto.randomBytes(150_000);
    const { url, headers, built } = await signedChunkedPut("chunked/signed-trailer", data, { trailer: "crc32" });
    const res = await send(url, headers, encode(built, true));
    expect(res.status, res.text).toBe(200);
    const crc = (await checksumOf("crc32", data)).toString("base64");
    expect(res.headers["x-amz-checksum-crc32"]).toBe(crc);
    expect((await headObject(store.lay, "easel", "chunked/signed-trailer"))?.checksum).toEqual({ algorithm: "crc32", value: crc, type: "FULL_OBJECT" });
    expect(md5Hex(await storedBytes(store.lay, "chunked/signed-trailer"))).toBe(md5Hex(data));
  });

  it("a tampered chunk signature answers 403 SignatureDoesNotMatch and stores nothing", async () => {
    const { url, headers, built } = await signedChunkedPut("chunked/bad-signature", crypto.randomBytes(200_000));
    built.frames[1].signature = built.frames[1].signature.replace(/^./, (c) => (c === "a" ? "b" : "a"));
    const res = await send(url, headers, encode(built, true));
    expect(res.status).toBe(403);
    expect(errorCode(res.text)).toBe("SignatureDoesNotMatch");
    await expectNothingStored("chunked/bad-signature");
  });

  it("a changed byte under a valid signature answers 403 and stores nothing", async () => {
    const { url, headers, built } = await signedChunkedPut("chunked/bad-bytes", crypto.randomBytes(100_000));
    built.frames[0].data = Buffer.from(built.frames[0].data);
    built.frames[0].data[10] ^= 1;
    const res = await send(url, headers, encode(built, true));
    expect(res.status).toBe(403);
    await expectNothingStored("chunked/bad-bytes");
  });

  it("chunks reordered (each signature valid on its own, the chain broken) answer 403", async () => {
    const { url, headers, built } = await signedChunkedPut("chunked/reordered", crypto.randomBytes(128 * 1024));
    [built.frames[0], built.frames[1]] = [built.frames[1], built.frames[0]];
    expect((await send(url, headers, encode(built, true))).status).toBe(403);
    await expectNothingStored("chunked/reordered");
  });

  it("a tampered trailer, or its signature, answers 403", async () => {
    const data = crypto.randomBytes(70_000);
    const forged = await signedChunkedPut("chunked/bad-trailer", data, { trailer: "crc32" });
    forged.built.trailerSignature = forged.built.trailerSignature.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect((await send(forged.url, forged.headers, encode(forged.built, true))).status).toBe(403);
    const swapped = await signedChunkedPut("chunked/bad-trailer", data, { trailer: "crc32" });
    swapped.built.trailer = `x-amz-checksum-crc32:${(await checksumOf("crc32", Buffer.from("else"))).toString("base64")}\r\n`;
    expect((await send(swapped.url, swapped.headers, encode(swapped.built, true))).status).toBe(403);
    await expectNothingStored("chunked/bad-trailer");
  });

  it("a signed trailer with the wrong checksum answers 400 BadDigest", async () => {
    const wrong = (await checksumOf("sha256", Buffer.from("not these bytes"))).toString("base64");
    const { url, headers, built } = await signedChunkedPut("chunked/wrong-sum", crypto.randomBytes(10_000), { trailer: "sha256", trailerValue: wrong });
    const res = await send(url, headers, encode(built, true));
    expect(res.status).toBe(400);
    expect(errorCode(res.text)).toBe("BadDigest");
    await expectNothingStored("chunked/wrong-sum");
  });

  it("a body cut before its final chunk answers 400 IncompleteBody", async () => {
    // Content-Length (signed) says the body ends 200 bytes early: inside the last chunk of bytes.
    const { url, headers, built } = await signedChunkedPut("chunked/truncated", crypto.randomBytes(200_000), { cut: 200 });
    const whole = encode(built, true);
    const res = await send(url, headers, whole.subarray(0, whole.length - 200));
    expect(res.status).toBe(400);
    expect(errorCode(res.text)).toBe("IncompleteBody");
    await expectNothingStored("chunked/truncated");
  });

  it("chunks carrying fewer bytes than x-amz-decoded-content-length answer 400 IncompleteBody", async () => {
    const data = crypto.randomBytes(1000);
    const { url, headers, built } = await signedChunkedPut("chunked/short", data);
    const res = await send(url, { ...headers, "x-amz-decoded-content-length": "1001" }, encode(built, true));
    // The declared length is signed: changing it fails the seed signature first.
    expect(res.status).toBe(403);
    const honest = await signedChunkedPut("chunked/short", data);
    honest.built.frames[0].data = honest.built.frames[0].data.subarray(0, 999);
    const short = await send(honest.url, honest.headers, encode(honest.built, true));
    expect(errorCode(short.text)).toMatch(/IncompleteBody|SignatureDoesNotMatch/);
    await expectNothingStored("chunked/short");
  });

  it("SigV4a (ECDSA) chunk signatures answer 501 NotImplemented", async () => {
    const { url, headers, built } = await signedChunkedPut("chunked/sigv4a", Buffer.from("x"), { payload: "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD" });
    const res = await send(url, headers, encode(built, true));
    expect(res.status).toBe(501);
    expect(errorCode(res.text)).toBe("NotImplemented");
    await expectNothingStored("chunked/sigv4a");
  });
});

describe("unsigned aws-chunked bodies (STREAMING-UNSIGNED-PAYLOAD-TRAILER)", () => {
  async function unsignedPut(key: string, headers: Record<string, string>, body: Buffer, query: Record<string, string> = {}) {
    const url = new URL(`${store.endpoint}/easel/${key}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const all = { host: url.host, "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "content-encoding": "aws-chunked", ...headers };
    const signed = await signer.sign({ method: "PUT", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query, headers: all }, { signingDate: clock() });
    return send(url, signed.headers, body);
  }

  it("an UploadPart whose trailer checksum is wrong answers 400 BadDigest and keeps no part", async () => {
    const url = new URL(`${store.endpoint}/easel/chunked/part`);
    const create = await signer.sign(
      { method: "POST", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query: { uploads: "" }, headers: { host: url.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-checksum-algorithm": "CRC32" } },
      { signingDate: clock() },
    );
    const created = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${url}?uploads`, { method: "POST", headers: create.headers }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end();
    });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)![1];
    const wrong = (await checksumOf("crc32", Buffer.from("x"))).toString("base64");
    const query = { partNumber: "1", uploadId };
    const res = await unsignedPut("chunked/part", { "x-amz-decoded-content-length": "5", "x-amz-trailer": "x-amz-checksum-crc32" }, Buffer.from(`5\r\nhello\r\n0\r\nx-amz-checksum-crc32:${wrong}\r\n\r\n`), query);
    expect(res.status).toBe(400);
    expect(errorCode(res.text)).toBe("BadDigest");
    expect(tmpLeftovers(store.lay)).toEqual([]);
    expect(fs.readdirSync(store.lay.uploadDir(uploadId))).toEqual(["upload.json"]);
    // The same part with its right trailer is taken, and its checksum echoed.
    const right = (await checksumOf("crc32", Buffer.from("hello"))).toString("base64");
    const ok = await unsignedPut("chunked/part", { "x-amz-decoded-content-length": "5", "x-amz-trailer": "x-amz-checksum-crc32" }, Buffer.from(`5\r\nhello\r\n0\r\nx-amz-checksum-crc32:${right}\r\n\r\n`), query);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers["x-amz-checksum-crc32"]).toBe(right);
  });

  it("a wrong trailer checksum answers 400 BadDigest and stores nothing", async () => {
    const wrong = (await checksumOf("crc32c", Buffer.from("x"))).toString("base64");
    const res = await unsignedPut("chunked/unsigned-wrong", { "x-amz-decoded-content-length": "5", "x-amz-trailer": "x-amz-checksum-crc32c" }, Buffer.from(`5\r\nhello\r\n0\r\nx-amz-checksum-crc32c:${wrong}\r\n\r\n`));
    expect(res.status).toBe(400);
    expect(errorCode(res.text)).toBe("BadDigest");
    expect(res.text).toContain("The CRC32C you specified did not match the calculated checksum.");
    await expectNothingStored("chunked/unsigned-wrong");
  });

  it("a trailer that was not announced, or missing, answers 400", async () => {
    const sum = (await checksumOf("crc32", Buffer.from("hello"))).toString("base64");
    const unannounced = await unsignedPut("chunked/unannounced", { "x-amz-decoded-content-length": "5" }, Buffer.from(`5\r\nhello\r\n0\r\nx-amz-checksum-crc32:${sum}\r\n\r\n`));
    expect(unannounced.status).toBe(400);
    const missing = await unsignedPut("chunked/unannounced", { "x-amz-decoded-content-length": "5", "x-amz-trailer": "x-amz-checksum-crc32" }, Buffer.from(`5\r\nhello\r\n0\r\n\r\n`));
    expect(missing.status).toBe(400);
    await expectNothingStored("chunked/unannounced");
  });

  it("malformed framing answers 400 and stores nothing", async () => {
    const bodies = ["zz\r\nhello\r\n0\r\n\r\n", "5\r\nhelloXX0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\nextra", "3\r\nhello\r\n0\r\n\r\n"];
    for (const body of bodies) {
      const res = await unsignedPut("chunked/malformed", { "x-amz-decoded-content-length": "5" }, Buffer.from(body));
      expect(res.status, body).toBe(400);
      expect(errorCode(res.text), body).toMatch(/^(InvalidRequest|IncompleteBody)$/);
    }
    await expectNothingStored("chunked/malformed");
  });

  it("without x-amz-decoded-content-length answers 411 MissingContentLength", async () => {
    const res = await unsignedPut("chunked/no-length", {}, Buffer.from("5\r\nhello\r\n0\r\n\r\n"));
    expect(res.status).toBe(411);
    expect(errorCode(res.text)).toBe("MissingContentLength");
    await expectNothingStored("chunked/no-length");
  });
});

describe("decodeAwsChunked", () => {
  async function decode(pieces: Buffer[], decodedLength: number) {
    const decoded = decodeAwsChunked(Readable.from(pieces), { decodedLength, signing: null, trailer: true });
    const out: Buffer[] = [];
    for await (const chunk of decoded.body) out.push(chunk as Buffer);
    return { bytes: Buffer.concat(out), trailers: decoded.trailers() };
  }

  it("decodes whatever way the body is cut into reads, down to single bytes", async () => {
    const data = crypto.randomBytes(3000);
    const encoded = Buffer.from(
      Buffer.concat([Buffer.from("800\r\n"), data.subarray(0, 2048), Buffer.from("\r\n3b8\r\n"), data.subarray(2048), Buffer.from("\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n")]),
    );
    for (const size of [1, 2, 7, 100, 2053, encoded.length]) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < encoded.length; at += size) pieces.push(encoded.subarray(at, at + size));
      const { bytes, trailers } = await decode(pieces, data.length);
      expect(bytes.equals(data), `reads of ${size}`).toBe(true);
      expect(trailers.get("x-amz-checksum-crc32")).toBe("AAAAAA==");
    }
  });

  it("refuses a header line longer than any chunk header, without holding it", async () => {
    await expect(decode([Buffer.alloc(10_000, "1")], 5)).rejects.toBeInstanceOf(BodyRefused);
  });
});
