import { describe, expect, it } from "vitest";
import { describeProgress, formatEta, percentOf } from "./encode-progress";
import { cueAt, formatMediaTime, parseStoryboardTrack } from "./storyboard-track";

const TRACK_URL = "https://easel.example/media/abc/storyboard?token=t1";

describe("storyboard track in the browser", () => {
  it("reads cues, resolving each image against the track's URL and keeping its query", () => {
    const text = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nstoryboard/RUN/storyboard.jpg?token=t1#xywh=0,0,160,90\n\n00:00:02.000 --> 00:00:03.500\r\nstoryboard/RUN/storyboard.jpg?token=t1#xywh=160,0,160,90\n";
    const cues = parseStoryboardTrack(text, TRACK_URL);
    expect(cues).toEqual([
      { start: 0, end: 2, url: "https://easel.example/media/abc/storyboard/RUN/storyboard.jpg?token=t1", x: 0, y: 0, w: 160, h: 90 },
      { start: 2, end: 3.5, url: "https://easel.example/media/abc/storyboard/RUN/storyboard.jpg?token=t1", x: 160, y: 0, w: 160, h: 90 },
    ]);
    expect(parseStoryboardTrack("01:02:03.250 --> 01:02:04.000\na.jpg#xywh=0,0,1,1", TRACK_URL)).toEqual([]);
    expect(parseStoryboardTrack("WEBVTT\n\n01:02:03.250 --> 01:02:04.000\na.jpg#xywh=0,0,1,1\n", TRACK_URL)[0].start).toBe(3723.25);
    // A cue whose image is no URL is skipped.
    expect(parseStoryboardTrack("WEBVTT\n\n00:00.000 --> 00:01.000\nhttp://[bad#xywh=0,0,1,1\n\n00:01.000 --> 00:02.000\nb.jpg#xywh=0,0,1,1\n", TRACK_URL).map((c) => c.url)).toEqual(["https://easel.example/media/abc/b.jpg"]);
    // A cue without a region, or with a broken one, is skipped.
    expect(parseStoryboardTrack("WEBVTT\n\n00:00.000 --> 00:01.000\na.jpg\n\n00:01.000 --> 00:02.000\na.jpg#xywh=0,0,0,9\n\n00:02.000 --> 00:03.000\na.jpg#xywh=1,2,3,4\n", TRACK_URL)).toHaveLength(1);
  });

  it("finds the cue at a time", () => {
    const cues = [0, 2, 4, 6].map((s) => ({ start: s, end: s + 2, url: "u", x: s * 80, y: 0, w: 160, h: 90 }));
    expect(cueAt(cues, 0)?.x).toBe(0);
    expect(cueAt(cues, 3.9)?.x).toBe(160);
    expect(cueAt(cues, 4)?.x).toBe(320);
    expect(cueAt(cues, 99)?.x).toBe(480);
    expect(cueAt(cues, -1)).toBeNull();
    expect(cueAt([], 1)).toBeNull();
  });

  it("formats media times", () => {
    expect(formatMediaTime(7.9)).toBe("0:07");
    expect(formatMediaTime(725)).toBe("12:05");
    expect(formatMediaTime(3723)).toBe("1:02:03");
    expect(formatMediaTime(Number.NaN)).toBe("0:00");
  });
});

describe("encode progress in words", () => {
  it("says the rung, the percentage and the estimate", () => {
    expect(describeProgress({ fraction: 0.426, rung: "720p", eta_seconds: 250 })).toBe("Encoding 720p · 42 % · about 4 min left");
    expect(describeProgress({ fraction: 0, rung: "probe", eta_seconds: null })).toBe("Reading the video · 0 %");
    expect(formatEta(30)).toBe("less than a minute left");
    expect(formatEta(3600 + 20 * 60)).toBe("about 1 h 20 min left");
    expect(formatEta(7200)).toBe("about 2 h left");
    expect(percentOf(1.4)).toBe(100);
    expect(percentOf(-0.1)).toBe(0);
  });
});
