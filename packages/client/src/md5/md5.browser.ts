import { createMD5 } from "hash-wasm";
import type { Md5 } from "./types";

/** Browsers' WebCrypto has no md5: hash-wasm's WebAssembly md5, incremental, so no file is held whole. */
export async function createMd5(): Promise<Md5> {
  const hash = await createMD5();
  hash.init();
  return { update: (chunk) => void hash.update(chunk), hex: () => hash.digest("hex") };
}
