import { describe, expect, it } from "vitest";
import { encodeErrorCode, EncodeFailure } from "./errors";
import { avcCodecOf, bitRates, masterPlaylist, parseMediaPlaylist } from "./playlists";

const media = `#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:4
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-MAP:URI="init.mp4"
#EXTINF:4.000000,
seg_00000.m4s
#EXTINF:2.500000,
seg_00001.m4s
#EXT-X-ENDLIST
`;

describe("playlists", () => {
  it("reads segments, the init segment and the end of a media playlist", () => {
    expect(parseMediaPlaylist(media)).toEqual({
      segments: [
        { uri: "seg_00000.m4s", duration: 4 },
        { uri: "seg_00001.m4s", duration: 2.5 },
      ],
      map: "init.mp4",
      ended: true,
    });
  });

  it("writes a master playlist with BANDWIDTH, RESOLUTION and CODECS, the start variant first", () => {
    const v = (h: number, bw: number) => ({ uri: `${h}p/index.m3u8`, width: (h * 16) / 9, height: h, bandwidth: bw, averageBandwidth: bw / 2, codecs: "avc1.64001f,mp4a.40.2" });
    const text = masterPlaylist([v(1080, 5e6), v(360, 1e6), v(720, 3e6)], "720p/index.m3u8");
    expect(text.split("\n").filter((l) => l && !l.startsWith("#"))).toEqual(["720p/index.m3u8", "360p/index.m3u8", "1080p/index.m3u8"]);
    expect(text).toContain('#EXT-X-STREAM-INF:BANDWIDTH=3000000,AVERAGE-BANDWIDTH=1500000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2"');
    expect(text.startsWith("#EXTM3U\n")).toBe(true);
  });

  it("takes the peak over full segments, not a tail of a few frames", () => {
    const segs = [
      { uri: "a", duration: 4 },
      { uri: "b", duration: 4 },
      { uri: "c", duration: 0.04 },
    ];
    expect(bitRates(segs, [400_000, 500_000, 20_000])).toEqual({ peak: 1_000_000, average: Math.ceil((920_000 * 8) / 8.04) });
  });

  it("reads the H.264 codec string from an init segment's avcC box", () => {
    const init = Buffer.concat([Buffer.from("....avcC"), Buffer.from([0x01, 0x64, 0x00, 0x1f, 0xff])]);
    expect(avcCodecOf(init)).toBe("avc1.64001f");
    expect(avcCodecOf(Buffer.from("no box here"))).toBeNull();
  });

  it("recovers an encode error code from a serialised step error", () => {
    expect(encodeErrorCode(new EncodeFailure("no_video_stream", "x"))).toBe("no_video_stream");
    expect(encodeErrorCode(new Error("NonRetriableError: unreadable_source: ffprobe failed"))).toBe("unreadable_source");
    expect(encodeErrorCode(new Error("something else: broke"))).toBe("encode_failed");
  });
});
