import crypto from "node:crypto";
import { Readable, Transform, type TransformCallback } from "node:stream";
import type { BodySource } from "../../http/request-body";
import { drainReadable } from "../discard-body";
import { BodyRefused, iterate } from "../disk/receive";
import { S3Error, s3Errors } from "./errors";
import { hmac, safeEqual, type ChunkSigning } from "./sigv4";

/**
 * Decodes an `aws-chunked` request body (`Content-Encoding: aws-chunked`, `x-amz-content-sha256:
 * STREAMING-*`) as it streams in: each chunk is `<hex size>[;chunk-signature=<sig>]\r\n<bytes>\r\n`,
 * the last has size 0 and is followed by trailing headers (a checksum computed while sending) and
 * an empty line. Only the chunks' bytes go on; memory is bounded by one header line and the
 * trailer, whatever the body's size.
 *
 * Signed variants (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]`): every chunk's signature is
 * checked when its last byte has passed, each chained from the one before (the first from the
 * request's own signature), and the trailer's signature from the last chunk's. Bytes of a chunk
 * pass on before its signature is checked; a failure fails the whole body, whose file the receiver
 * then removes, so nothing of it is ever stored.
 */

/** Longest chunk header line accepted: a size, and a signature extension (~100 bytes) with room. */
const MAX_HEADER_LINE = 4096;
/** Trailing headers, all lines together (a checksum and a signature are ~150 bytes). */
const MAX_TRAILER = 16 * 1024;
const EMPTY_SHA256 = crypto.createHash("sha256").digest("hex");

export type ChunkedOptions = {
  /** `x-amz-decoded-content-length`: the bytes the chunks carry in all. */
  decodedLength: number;
  signing: ChunkSigning | null;
  /** Whether trailing headers may follow the last chunk. */
  trailer: boolean;
};

/** A chunked body being decoded: its bytes, then (once they have all passed) the trailing headers. */
export type DecodedBody = { body: Readable; trailers: () => Map<string, string> };

const incomplete = () => new S3Error("IncompleteBody", "The request body terminated unexpectedly", 400);
const malformed = (detail: string) => s3Errors.invalidRequest(`The aws-chunked body is malformed: ${detail}.`);
const malformedTrailer = () => new S3Error("MalformedTrailerError", "The request contained trailing data that was not well-formed or did not conform to our published schema.", 400);
const badSignature = () =>
  new S3Error("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.", 403);

class AwsChunkedDecoder extends Transform {
  private state: "header" | "data" | "data-end" | "trailer" | "done" = "header";
  private line: Buffer[] = [];
  private lineBytes = 0;
  private chunkLeft = 0;
  private chunkSignature = "";
  private chunkHash: crypto.Hash | null = null;
  private previousSignature: string;
  private decoded = 0;
  private trailerBytes = 0;
  readonly trailers = new Map<string, string>();
  private trailerSignature: string | null = null;
  private trailerCanonical = "";

  constructor(private readonly opts: ChunkedOptions) {
    super();
    this.previousSignature = opts.signing?.seedSignature ?? "";
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.consume(chunk);
      done();
    } catch (err) {
      done(err instanceof S3Error ? new BodyRefused(err) : (err as Error));
    }
  }

  override _flush(done: TransformCallback): void {
    done(this.state === "done" ? undefined : new BodyRefused(incomplete()));
  }

  private consume(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.state === "data") {
        const n = Math.min(this.chunkLeft, chunk.length - at);
        const bytes = chunk.subarray(at, at + n);
        this.chunkHash?.update(bytes);
        this.push(bytes);
        at += n;
        this.chunkLeft -= n;
        if (this.chunkLeft === 0) {
          this.checkChunkSignature();
          this.state = "data-end";
        }
        continue;
      }
      if (this.state === "done") throw malformed("data follows the final chunk");
      // Header, chunk end and trailer are lines: gather bytes up to the next CRLF.
      const lf = chunk.indexOf(0x0a, at);
      const end = lf < 0 ? chunk.length : lf + 1;
      this.gather(chunk.subarray(at, end));
      at = end;
      if (lf >= 0) this.endOfLine(this.takeLine());
    }
  }

  private gather(bytes: Buffer): void {
    this.lineBytes += bytes.length;
    const limit = this.state === "trailer" ? MAX_TRAILER - this.trailerBytes : MAX_HEADER_LINE;
    if (this.lineBytes > limit) throw this.state === "trailer" ? malformedTrailer() : malformed("a chunk header is too long");
    this.line.push(bytes);
  }

  private takeLine(): string {
    const whole = Buffer.concat(this.line);
    this.line = [];
    this.lineBytes = 0;
    if (whole.length < 2 || whole[whole.length - 2] !== 0x0d) throw this.state === "trailer" ? malformedTrailer() : malformed("a line does not end with CRLF");
    if (this.state === "trailer") this.trailerBytes += whole.length;
    return whole.subarray(0, whole.length - 2).toString("latin1");
  }

  private endOfLine(line: string): void {
    if (this.state === "data-end") {
      if (line !== "") throw malformed("a chunk is longer than its declared size");
      this.state = "header";
    } else if (this.state === "header") {
      this.startChunk(line);
    } else if (this.state === "trailer") {
      if (line === "") this.endTrailer();
      else this.addTrailer(line);
    }
  }

  private startChunk(line: string): void {
    const [sizeText, ...extensions] = line.split(";");
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeText)) throw malformed("a chunk size is not a hexadecimal number");
    const size = parseInt(sizeText, 16);
    if (this.opts.signing) {
      const signature = extensions.find((e) => e.startsWith("chunk-signature="))?.slice("chunk-signature=".length);
      if (!signature || !/^[0-9a-f]{64}$/.test(signature)) throw malformed("a chunk of a signed body carries no chunk-signature");
      this.chunkSignature = signature;
      this.chunkHash = crypto.createHash("sha256");
    }
    if (this.decoded + size > this.opts.decodedLength) throw incomplete();
    this.decoded += size;
    if (size > 0) {
      this.chunkLeft = size;
      this.state = "data";
      return;
    }
    // The final chunk: signed (over no bytes) like any other; what follows are trailing headers.
    this.checkChunkSignature();
    if (this.decoded !== this.opts.decodedLength) throw incomplete();
    this.state = "trailer";
  }

  /** A chunk's signature: over the previous signature and the sha256 of the chunk's bytes. */
  private checkChunkSignature(): void {
    const signing = this.opts.signing;
    if (!signing || !this.chunkHash) return;
    const stringToSign = ["AWS4-HMAC-SHA256-PAYLOAD", signing.amzDate, signing.scope, this.previousSignature, EMPTY_SHA256, this.chunkHash.digest("hex")].join("\n");
    this.chunkHash = null;
    if (!safeEqual(hmac(signing.signingKey, stringToSign).toString("hex"), this.chunkSignature)) throw badSignature();
    this.previousSignature = this.chunkSignature;
  }

  private addTrailer(line: string): void {
    if (!this.opts.trailer) throw malformedTrailer();
    const colon = line.indexOf(":");
    if (colon <= 0) throw malformedTrailer();
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "x-amz-trailer-signature") {
      if (!this.opts.signing || this.trailerSignature !== null) throw malformedTrailer();
      this.trailerSignature = value;
      return;
    }
    if (this.trailerSignature !== null || this.trailers.has(name)) throw malformedTrailer();
    this.trailers.set(name, value);
    this.trailerCanonical += `${name}:${value}\n`;
  }

  /** The trailer of a signed body is signed too: over the last chunk's signature and its headers. */
  private endTrailer(): void {
    const signing = this.opts.signing;
    if (signing && this.opts.trailer) {
      if (this.trailerSignature === null) throw badSignature();
      const canonicalHash = crypto.createHash("sha256").update(this.trailerCanonical).digest("hex");
      const stringToSign = ["AWS4-HMAC-SHA256-TRAILER", signing.amzDate, signing.scope, this.previousSignature, canonicalHash].join("\n");
      if (!safeEqual(hmac(signing.signingKey, stringToSign).toString("hex"), this.trailerSignature)) throw badSignature();
    }
    this.state = "done";
  }
}

/**
 * The decoded bytes of `source` as a Node stream (so the receiver's event-driven path applies).
 * The source is read only while the decoder wants more; when decoding fails, whatever the client
 * is still sending is read and dropped (up to a limit), so that it receives the error answer.
 */
export function decodeAwsChunked(source: BodySource, opts: ChunkedOptions): DecodedBody {
  const decoder = new AwsChunkedDecoder(opts);
  const input = source === null ? Readable.from([]) : source instanceof Readable ? source : Readable.from(iterate(source), { objectMode: false });
  const abort = () => decoder.destroy(Object.assign(new Error("the client closed the connection before the body ended"), { code: "ECONNRESET" }));
  input.on("error", abort);
  input.on("close", () => {
    if (!input.readableEnded) abort();
  });
  // The decoder may refuse the body before its reader listens: the reader finds the error on the
  // stream (`errored`) rather than the process meeting an unhandled 'error' event.
  decoder.on("error", () => undefined);
  // Ended early (a refused chunk, a body too large, a failed write): the rest is not decoded.
  decoder.on("close", () => {
    if (input.readableEnded) return;
    input.unpipe(decoder);
    drainReadable(input);
  });
  input.pipe(decoder);
  return { body: decoder, trailers: () => decoder.trailers };
}
