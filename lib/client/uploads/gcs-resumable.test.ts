import { describe, expect, it } from "vitest";
import { GCS_CHUNK_BYTES } from "./gcs-resumable";
import { committedBytes } from "./resume";

describe("resumable upload bookkeeping", () => {
  it.each([
    ["bytes=0-8388607", 8 * 1024 * 1024],
    ["bytes=0-0", 1],
    [null, 0],
    ["garbage", 0],
  ])("Range %s → %i bytes stored", (range, bytes) => {
    expect(committedBytes(range)).toBe(bytes);
  });

  it("chunks are whole multiples of 256 KiB, as the protocol requires of every chunk but the last", () => {
    expect(GCS_CHUNK_BYTES % (256 * 1024)).toBe(0);
  });
});
