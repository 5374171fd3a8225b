import { describe, expect, it } from "vitest";
import { EncodeFailure } from "./errors";
import { planLadder, videoKbpsFor } from "./ladder";

const shape = (w: number, h: number) => planLadder({ width: w, height: h }).map((r) => `${r.name} ${r.width}x${r.height}`);

describe("planLadder", () => {
  it("builds the standard ladder for 1080p and never goes above it", () => {
    expect(shape(1920, 1080)).toEqual(["240p 426x240", "360p 640x360", "720p 1280x720", "1080p 1920x1080"]);
    expect(shape(3840, 2160)).toEqual(["240p 426x240", "360p 640x360", "720p 1280x720", "1080p 1920x1080"]);
  });

  it("never upscales: the source's own size is the top rung", () => {
    expect(shape(640, 360)).toEqual(["240p 426x240", "360p 640x360"]);
    expect(shape(960, 540)).toEqual(["240p 426x240", "360p 640x360", "540p 960x540"]);
    expect(shape(320, 240)).toEqual(["240p 320x240"]);
  });

  it("measures portrait video on its short side", () => {
    expect(shape(1080, 1920)).toEqual(["240p 240x426", "360p 360x640", "720p 720x1280", "1080p 1080x1920"]);
  });

  it("makes odd dimensions even (H.264 4:2:0 needs it) and drops a standard rung too close to the top", () => {
    expect(shape(321, 241)).toEqual(["240p 320x240"]);
    expect(shape(853, 399)).toEqual(["240p 514x240", "398p 850x398"]);
    expect(shape(700, 380)).toEqual(["240p 442x240", "380p 700x380"]);
    expect(shape(660, 370)).toEqual(["240p 428x240", "370p 660x370"]);
  });

  it("refuses pictures too small to stream", () => {
    expect(() => planLadder({ width: 8, height: 8 })).toThrow(EncodeFailure);
  });

  it("scales the peak bit rate with the rung", () => {
    expect([240, 360, 720, 1080].map(videoKbpsFor)).toEqual([500, 950, 2700, 5000]);
  });
});
