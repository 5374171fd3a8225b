import { describe, expect, it } from "vitest";
import { MAX_TILES, planStoryboard, spriteGrid, storyboardTrack } from "./storyboard-plan";

const cueTimes = (track: string) => [...track.matchAll(/^(\S+) --> (\S+)$/gm)].map((m) => [m[1], m[2]]);

describe("storyboard plan", () => {
  it("takes a frame every second of a short clip, then spaces them so a sprite never holds more than 100 tiles", () => {
    const hd = { width: 1920, height: 1080 };
    expect(planStoryboard({ ...hd, durationSeconds: 5 }).intervalSeconds).toBe(1);
    expect(planStoryboard({ ...hd, durationSeconds: 120 }).intervalSeconds).toBe(2);
    expect(planStoryboard({ ...hd, durationSeconds: 600 }).intervalSeconds).toBe(6);
    expect(planStoryboard({ ...hd, durationSeconds: 3600 }).intervalSeconds).toBe(36);
    expect(planStoryboard({ ...hd, durationSeconds: null }).intervalSeconds).toBe(2);
    for (const d of [31, 199, 201, 999, 7201, 86_400]) expect(Math.ceil(d / planStoryboard({ ...hd, durationSeconds: d }).intervalSeconds)).toBeLessThanOrEqual(MAX_TILES);
  });

  it("makes tiles 160 px wide, as tall as the picture's shape asks within a bound", () => {
    expect(planStoryboard({ width: 1920, height: 1080, durationSeconds: 10 })).toMatchObject({ tileWidth: 160, tileHeight: 90 });
    expect(planStoryboard({ width: 640, height: 480, durationSeconds: 10 })).toMatchObject({ tileHeight: 120 });
    expect(planStoryboard({ width: 1080, height: 1920, durationSeconds: 10 })).toMatchObject({ tileHeight: 284 });
    expect(planStoryboard({ width: 100, height: 4000, durationSeconds: 10 })).toMatchObject({ tileHeight: 288 });
  });

  it("lays tiles out ten to a row", () => {
    expect(spriteGrid(1)).toEqual({ columns: 1, rows: 1 });
    expect(spriteGrid(7)).toEqual({ columns: 7, rows: 1 });
    expect(spriteGrid(10)).toEqual({ columns: 10, rows: 1 });
    expect(spriteGrid(23)).toEqual({ columns: 10, rows: 3 });
    expect(spriteGrid(100)).toEqual({ columns: 10, rows: 10 });
  });

  it("writes cues back to back from 0 to the end of the video, each naming its tile", () => {
    const plan = planStoryboard({ width: 1280, height: 720, durationSeconds: 25.5 });
    const track = storyboardTrack(plan, 26, 25.5);
    expect(track.startsWith("WEBVTT\n\n")).toBe(true);
    const times = cueTimes(track);
    expect(times).toHaveLength(26);
    expect(times[0]).toEqual(["00:00:00.000", "00:00:01.000"]);
    expect(times[25]).toEqual(["00:00:25.000", "00:00:25.500"]);
    expect(track).toContain("00:00:11.000 --> 00:00:12.000\nstoryboard.jpg#xywh=160,90,160,90\n");
    // An hour-long video (a tile every 37 s): hours in the stamps, the last cue ends at the end.
    const long = storyboardTrack(planStoryboard({ width: 1280, height: 720, durationSeconds: 3700 }), 100, 3700);
    expect(cueTimes(long)[99]).toEqual(["01:01:03.000", "01:01:40.000"]);
  });
});
