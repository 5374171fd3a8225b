import { describe, expect, it } from "vitest";
import { streamCacheControl, streamFileKey, streamRunOf } from "./stream-files";

const KEY = "ws1/up/abc.mp4.hls/01JRUNAAAAAAAAAAAAAAAAAAAA/master.m3u8";
const RUN = "01JRUNAAAAAAAAAAAAAAAAAAAA";

describe("stream file URLs", () => {
  it("names a stream by its encode run, or by a digest of a key in another layout", () => {
    expect(streamRunOf(KEY)).toBe(RUN);
    const legacy = streamRunOf("ws1/up/abc.mp4.hls/master.m3u8");
    expect(legacy).toMatch(/^k[0-9a-f]{26}$/);
    expect(streamRunOf("ws1/up/other.mp4.hls/master.m3u8")).not.toBe(legacy);
  });

  it("maps the master, the run's files and the run-less files to keys; only the run's segments are immutable", () => {
    expect(streamFileKey(KEY, [])).toMatchObject({ key: KEY, master: true, playlist: true, immutable: false, run: RUN });
    expect(streamFileKey(KEY, [RUN, "360p", "index.m3u8"])).toMatchObject({ key: `ws1/up/abc.mp4.hls/${RUN}/360p/index.m3u8`, playlist: true, immutable: false });
    expect(streamFileKey(KEY, [RUN, "360p", "seg_00001.m4s"])).toMatchObject({ key: `ws1/up/abc.mp4.hls/${RUN}/360p/seg_00001.m4s`, contentType: "video/iso.segment", immutable: true });
    expect(streamFileKey(KEY, ["360p", "init.mp4"])).toMatchObject({ key: `ws1/up/abc.mp4.hls/${RUN}/360p/init.mp4`, immutable: false });
  });

  it("names nothing for another run, a path too deep, or a name that could leave the folder", () => {
    expect(streamFileKey(KEY, ["01JOTHERAAAAAAAAAAAAAAAAAA", "360p", "seg_00000.m4s"])).toBeNull();
    expect(streamFileKey(KEY, [RUN, "360p", "x", "seg_00000.m4s"])).toBeNull();
    expect(streamFileKey(KEY, [RUN, "..", "lease.json"])).toBeNull();
    expect(streamFileKey(null, [])).toBeNull();
  });

  it("lets caches keep run files no longer than a year nor past the link's authorisation", () => {
    const now = 1_000_000_000_000;
    expect(streamCacheControl({ immutable: false }, now + 3_600_000, now)).toBe("no-cache");
    expect(streamCacheControl({ immutable: true }, now + 3_600_000, now)).toBe("max-age=3600, immutable");
    expect(streamCacheControl({ immutable: true }, now + 10 * 365 * 86_400_000, now)).toBe("max-age=31536000, immutable");
    expect(streamCacheControl({ immutable: true }, now - 1000, now)).toBe("max-age=0, immutable");
  });
});
