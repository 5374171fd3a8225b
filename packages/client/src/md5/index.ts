// `#md5` is Node's crypto in Node and hash-wasm in a browser build (package.json "imports").
import { createMd5 } from "#md5";
import { readChunks, type ByteSource } from "../upload/byte-reader";

export { createMd5 };
export type { Md5 } from "./types";

/** The md5 (32 lowercase hex digits) of a whole source, read once in `chunkBytes` pieces. */
export async function md5Of(source: ByteSource, opts: { signal?: AbortSignal; chunkBytes?: number } = {}): Promise<string> {
  const hash = await createMd5();
  for await (const chunk of readChunks(source, opts.chunkBytes ?? 8 * 1024 * 1024, opts.signal)) hash.update(chunk);
  return hash.hex();
}
