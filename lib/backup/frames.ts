import { Transform, type TransformCallback } from "node:stream";

/**
 * How the owner answers a backup request on the data dir's control channel: a sequence of frames,
 * each a type byte, a 4-byte big-endian length and the payload.
 *   D  archive bytes (plain tar, in order)
 *   P  progress, JSON {bytes, objects}
 *   S  summary, JSON (BackupSummary): the last frame of a backup that succeeded
 *   E  error, JSON {message}: the last frame of a backup that failed
 * A connection that closes without S or E was cut (the owner died or went away).
 */
export const FRAME = { data: 0x44, progress: 0x50, summary: 0x53, error: 0x45 } as const;
export type FrameType = (typeof FRAME)[keyof typeof FRAME];
export type Frame = { type: number; payload: Buffer };

/** Bounds a frame whose length field is garbage (a data frame holds one read chunk, ≤ 1 MiB). */
const MAX_FRAME = 16 * 1024 * 1024;

/** A frame's 5-byte head; written before its payload, so a data chunk is never copied to be framed. */
export function frameHead(type: FrameType, length: number): Buffer {
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeUInt32BE(length, 1);
  return head;
}

export function encodeFrame(type: FrameType, payload: Buffer | object): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload));
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/**
 * Bytes → frames (object mode on the readable side). A reply that starts with "{" is the control
 * channel's own JSON error line (no such operation, a malformed request): it becomes an E frame.
 */
export class FrameDecoder extends Transform {
  /** Received bytes not yet framed, kept as chunks: joined once per frame, not once per chunk. */
  private chunks: Buffer[] = [];
  private buffered = 0;
  private jsonLine = false;

  constructor() {
    super({ readableObjectMode: true });
  }

  private get pending(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (!this.jsonLine && this.chunks[0][0] === 0x7b) this.jsonLine = true;
    if (this.jsonLine) return done();
    for (;;) {
      if (this.buffered < 5) break;
      const head = this.chunks[0].length >= 5 ? this.chunks[0] : this.pending;
      const length = head.readUInt32BE(1);
      if (!Object.values(FRAME).includes(head[0] as FrameType) || length > MAX_FRAME) return done(new Error("the data dir's owner answered something that is not a backup"));
      if (this.buffered < 5 + length) break;
      const all = this.pending;
      this.push({ type: all[0], payload: all.subarray(5, 5 + length) } satisfies Frame);
      const rest = all.subarray(5 + length);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
    }
    done();
  }

  override _flush(done: TransformCallback) {
    if (this.jsonLine) {
      let message = this.pending.toString("utf8").trim();
      try {
        message = String((JSON.parse(message) as { error?: unknown }).error ?? message);
      } catch {
        // Not JSON after all: passed on as it came.
      }
      this.push({ type: FRAME.error, payload: Buffer.from(JSON.stringify({ message })) } satisfies Frame);
    } else if (this.pending.length) return done(new Error("the backup's connection was cut in the middle of a frame"));
    done();
  }
}
