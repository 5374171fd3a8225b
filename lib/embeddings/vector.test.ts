import { describe, expect, it } from "vitest";
import { dotWithStored, packVector, unitVector, unpackVector } from "./vector";

describe("stored vectors", () => {
  it("pack to 4 bytes a dimension and read back as float32", () => {
    const v = unitVector([3, 4, 0, -12]);
    const bytes = packVector(v);
    expect(bytes.byteLength).toBe(16);
    expect(bytes.readFloatLE(4)).toBeCloseTo(4 / 13, 6);
    unpackVector(bytes).forEach((x, i) => expect(x).toBeCloseTo(v[i], 6));
  });

  it("give the cosine similarity of unit vectors as a dot product, and null for another size", () => {
    const a = unitVector([1, 1, 0]);
    const stored = packVector(unitVector([1, 0, 0]));
    expect(dotWithStored(Float64Array.from(a), stored)).toBeCloseTo(Math.SQRT1_2, 6);
    // Read from a view that does not start at offset 0 of its buffer, as drivers hand them out.
    const shifted = new Uint8Array(stored.byteLength + 3);
    shifted.set(stored, 3);
    expect(dotWithStored(Float64Array.from(a), shifted.subarray(3))).toBeCloseTo(Math.SQRT1_2, 6);
    expect(dotWithStored(Float64Array.from([1, 0]), stored)).toBeNull();
  });
});
