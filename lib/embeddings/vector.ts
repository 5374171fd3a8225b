import { EmbeddingsError } from "./errors";

/**
 * Vectors as stored: float32, little-endian, packed in a bytea (4 bytes a dimension). Reading
 * them back as bytes is an order of magnitude faster than a real[] (whose text form PostgreSQL
 * prints and the driver parses number by number), and a dot product in JS over them is cheap.
 */
export function packVector(v: number[]): Buffer {
  const out = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => out.writeFloatLE(x, i * 4));
  return out;
}

export function unpackVector(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength >> 2 }, (_, i) => view.getFloat32(i * 4, true));
}

/** Dot product of `query` and a stored vector; null when their sizes differ (another model's shape). */
export function dotWithStored(query: Float64Array, bytes: Uint8Array): number | null {
  if (bytes.byteLength !== query.length * 4) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let sum = 0;
  for (let i = 0; i < query.length; i++) sum += query[i] * view.getFloat32(i * 4, true);
  return sum;
}

/** `v` scaled to length 1, so the dot product of two stored vectors is their cosine similarity. */
export function unitVector(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  if (!(norm > 0) || !Number.isFinite(norm)) throw new EmbeddingsError("malformed", "The embeddings service answered a zero vector");
  return v.map((x) => x / norm);
}
