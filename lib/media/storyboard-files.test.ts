import { describe, expect, it } from "vitest";
import { authorizeTrack, storyboardFileKey, storyboardKeyOf } from "./storyboard-files";

const RUN = "01JRUNAAAAAAAAAAAAAAAAAAAA";
const DIR = `ws1/up/abc.mp4.hls/${RUN}`;
const STREAM = `${DIR}/master.m3u8`;

describe("storyboard URLs", () => {
  it("names the published run's track and sprite, and nothing else", () => {
    const key = storyboardKeyOf(DIR);
    expect(storyboardFileKey(STREAM, key, [])).toMatchObject({ key, track: true, run: RUN, contentType: "text/vtt; charset=utf-8" });
    expect(storyboardFileKey(STREAM, key, [RUN, "storyboard.jpg"])).toMatchObject({ key: `${DIR}/storyboard.jpg`, track: false, contentType: "image/jpeg" });
    expect(storyboardFileKey(STREAM, key, ["01JOTHERAAAAAAAAAAAAAAAAAA", "storyboard.jpg"])).toBeNull();
    expect(storyboardFileKey(STREAM, key, [RUN, "master.m3u8"])).toBeNull();
    expect(storyboardFileKey(STREAM, key, ["storyboard.jpg"])).toBeNull();
    expect(storyboardFileKey(null, key, [])).toBeNull();
    expect(storyboardFileKey(STREAM, null, [])).toBeNull();
    // A storyboard of another run than the published stream's (an older encode's): nothing.
    expect(storyboardFileKey(STREAM, storyboardKeyOf("ws1/up/abc.mp4.hls/01JOLDAAAAAAAAAAAAAAAAAAAA"), [])).toBeNull();
  });

  it("adds the run's path and the authorisation to each cue's image, before its fragment", () => {
    const track = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nstoryboard.jpg#xywh=0,0,160,90\n\n00:00:02.000 --> 00:00:03.500\r\nstoryboard.jpg#xywh=160,0,160,90\n";
    const out = authorizeTrack(track, `storyboard/${RUN}/`, "token=abc");
    expect(out).toContain(`\nstoryboard/${RUN}/storyboard.jpg?token=abc#xywh=0,0,160,90\n`);
    expect(out).toContain(`\nstoryboard/${RUN}/storyboard.jpg?token=abc#xywh=160,0,160,90\n`);
    expect(out).toContain("00:00:02.000 --> 00:00:03.500");
    expect(authorizeTrack(track, "p/", "")).toContain("\np/storyboard.jpg#xywh=0,0,160,90\n");
    // Anything that is not a bare name with an xywh fragment is left as it is.
    expect(authorizeTrack("https://x.example/a.jpg#xywh=0,0,1,1\n../a.jpg#xywh=0,0,1,1", "p/", "q=1")).toBe("https://x.example/a.jpg#xywh=0,0,1,1\n../a.jpg#xywh=0,0,1,1");
  });
});
