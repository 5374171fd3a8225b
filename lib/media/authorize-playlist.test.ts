import { describe, expect, it } from "vitest";
import { authorizePlaylist } from "./authorize-playlist";

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

describe("authorizePlaylist", () => {
  it("adds the authorisation to every relative URI, attributes included", () => {
    const out = authorizePlaylist(media, "", "token=abc");
    expect(out).toContain('#EXT-X-MAP:URI="init.mp4?token=abc"');
    expect(out).toContain("\nseg_00001.m4s?token=abc\n");
    const master = authorizePlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n360p/index.m3u8\nhttps://cdn.example/x.m3u8\n", "stream/", "exp=1&sig=s");
    expect(master).toBe("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nstream/360p/index.m3u8?exp=1&sig=s\nhttps://cdn.example/x.m3u8\n");
  });
});
