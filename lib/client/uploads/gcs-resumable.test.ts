import { describe, expect, it } from "vitest";
import { GCS_CHUNK_BYTES } from "./gcs-resumable";

// Where a session goes on (Range → offset, status answers) is tested in resume.test.ts, and against
// the embedded store in resume-store.test.ts.
describe("resumable upload chunks", () => {
  it("are whole multiples of 256 KiB, as the protocol requires of every chunk but the last", () => {
    expect(GCS_CHUNK_BYTES % (256 * 1024)).toBe(0);
  });
});
