import { describe, expect, it } from "vitest";
import { lumaHighOf, posterCandidates } from "./poster";

describe("poster candidates", () => {
  it("are the middles of the first segments, within the video, at most eight", () => {
    expect(posterCandidates(20)).toEqual([2, 6, 10, 14, 18]);
    expect(posterCandidates(600)).toEqual([2, 6, 10, 14, 18, 22, 26, 30]);
    expect(posterCandidates(5)).toEqual([2]);
    // A clip shorter than half a segment: its own middle.
    expect(posterCandidates(1.5)).toEqual([0.75]);
    // Unknown length: the same times, until a frame cannot be read.
    expect(posterCandidates(undefined)).toHaveLength(8);
  });

  it("reads the first frame's 90th-percentile luma from a signalstats print", () => {
    const print = "frame:0    pts:0       pts_time:0\nlavfi.signalstats.YMIN=16\nlavfi.signalstats.YHIGH=210\nframe:1 …\nlavfi.signalstats.YHIGH=16\n";
    expect(lumaHighOf(print)).toBe(210);
    expect(lumaHighOf("")).toBeNull();
  });
});
