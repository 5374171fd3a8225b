import { abortError } from "../errors";

/**
 * Bytes read at any offset, such as a file on disk in Node (src/node/file-source.ts): each piece
 * is read once into memory of its own, with no copy through a stream.
 */
export type RandomAccessSource = { size: number; name?: string; readAt: (offset: number, length: number) => Promise<Uint8Array>; close?: () => Promise<void> };

/** Bytes to upload: a Blob (a browser File), a RandomAccessSource, or a stream of chunks. */
export type ByteSource = Blob | RandomAccessSource | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export const isRandomAccess = (source: unknown): source is RandomAccessSource => typeof (source as RandomAccessSource | null)?.readAt === "function";

/**
 * Reads a source front to back, `size` bytes at a time (the last piece shorter): each upload
 * kind reads its source once, in order, so the md5 is computed on the way and a stream needs no
 * second pass. A Blob is sliced; a stream is re-cut into pieces of the size asked for.
 */
export class ByteReader {
  #blob: Blob | null;
  #random: RandomAccessSource | null = null;
  #iterator: AsyncIterator<Uint8Array> | null = null;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #done = false;
  position = 0;

  constructor(source: ByteSource) {
    if (typeof Blob !== "undefined" && source instanceof Blob) {
      this.#blob = source;
    } else if (isRandomAccess(source)) {
      this.#blob = null;
      this.#random = source;
    } else {
      this.#blob = null;
      const iterable: AsyncIterable<Uint8Array> =
        Symbol.asyncIterator in (source as object) ? (source as AsyncIterable<Uint8Array>) : streamIterable(source as ReadableStream<Uint8Array>);
      this.#iterator = iterable[Symbol.asyncIterator]();
    }
  }

  /** The next `size` bytes (fewer only at the end; empty once the source is exhausted). */
  async read(size: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (signal?.aborted) throw abortError(signal);
    if (this.#random) {
      const length = Math.max(0, Math.min(size, this.#random.size - this.position));
      const bytes = length > 0 ? await this.#random.readAt(this.position, length) : new Uint8Array(0);
      this.position += bytes.byteLength;
      return bytes;
    }
    if (this.#blob) {
      const end = Math.min(this.position + size, this.#blob.size);
      const bytes = new Uint8Array(await this.#blob.slice(this.position, end).arrayBuffer());
      this.position = end;
      return bytes;
    }
    while (this.#pendingBytes < size && !this.#done) {
      const next = await this.#iterator!.next();
      if (signal?.aborted) throw abortError(signal);
      if (next.done) this.#done = true;
      else if (next.value.byteLength > 0) {
        this.#pending.push(next.value);
        this.#pendingBytes += next.value.byteLength;
      }
    }
    const take = Math.min(size, this.#pendingBytes);
    const out = new Uint8Array(take);
    let filled = 0;
    while (filled < take) {
      const head = this.#pending[0];
      const n = Math.min(head.byteLength, take - filled);
      out.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.byteLength) this.#pending.shift();
      else this.#pending[0] = head.subarray(n);
    }
    this.#pendingBytes -= take;
    this.position += take;
    return out;
  }

  /** Stops reading a stream early (an upload that failed or was aborted). */
  async close(): Promise<void> {
    await this.#iterator?.return?.();
  }
}

async function* streamIterable(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Every piece of a source in order, `size` bytes each (the last shorter). */
export async function* readChunks(source: ByteSource, size: number, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  const reader = new ByteReader(source);
  try {
    for (;;) {
      const chunk = await reader.read(size, signal);
      if (chunk.byteLength === 0) return;
      yield chunk;
    }
  } finally {
    await reader.close();
  }
}
