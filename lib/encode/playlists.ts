/**
 * HLS playlists: the master playlist Easel writes after an encode, and reading the media playlists
 * ffmpeg writes. Serving them (with a link's authorisation added) is lib/media/authorize-playlist.ts.
 */

export type MediaSegment = { uri: string; duration: number };
export type MediaPlaylist = { segments: MediaSegment[]; map: string | null; ended: boolean };

/** The segments (#EXTINF durations and URIs), the init segment (#EXT-X-MAP) and whether it is complete. */
export function parseMediaPlaylist(text: string): MediaPlaylist {
  const segments: MediaSegment[] = [];
  let map: string | null = null;
  let ended = false;
  let duration: number | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith("#EXTINF:")) duration = Number.parseFloat(line.slice("#EXTINF:".length));
    else if (line.startsWith("#EXT-X-MAP:")) map = /URI="([^"]*)"/.exec(line)?.[1] ?? null;
    else if (line === "#EXT-X-ENDLIST") ended = true;
    else if (!line.startsWith("#")) {
      segments.push({ uri: line, duration: duration ?? 0 });
      duration = null;
    }
  }
  return { segments, map, ended };
}

export type Variant = {
  /** URI of the media playlist, relative to the master playlist. */
  uri: string;
  width: number;
  height: number;
  /** Peak segment bit rate (bits/s), as HLS defines BANDWIDTH. */
  bandwidth: number;
  averageBandwidth: number;
  codecs: string;
  frameRate?: number;
};

/**
 * The master playlist. The first variant listed is where players without a bandwidth estimate
 * start (hls.js and Safari do), so `start` names the one to list first; the rest follow from the
 * lowest bit rate up.
 */
export function masterPlaylist(variants: Variant[], start?: string): string {
  const sorted = [...variants].sort((a, b) => a.bandwidth - b.bandwidth);
  const first = sorted.find((v) => v.uri === start);
  const ordered = first ? [first, ...sorted.filter((v) => v !== first)] : sorted;
  const lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const v of ordered) {
    const attrs = [
      `BANDWIDTH=${Math.round(v.bandwidth)}`,
      `AVERAGE-BANDWIDTH=${Math.round(v.averageBandwidth)}`,
      `RESOLUTION=${v.width}x${v.height}`,
      `CODECS="${v.codecs}"`,
      ...(v.frameRate ? [`FRAME-RATE=${v.frameRate.toFixed(3)}`] : []),
    ];
    lines.push(`#EXT-X-STREAM-INF:${attrs.join(",")}`, v.uri);
  }
  return `${lines.join("\n")}\n`;
}

/** Peak and average bit rate of a media playlist's segments, given each segment's size in bytes. */
export function bitRates(segments: MediaSegment[], sizes: number[]): { peak: number; average: number } {
  const total = segments.reduce((s, seg) => s + seg.duration, 0);
  const bytes = sizes.reduce((s, n) => s + n, 0);
  const rates = segments.map((seg, i) => (seg.duration > 0 ? (sizes[i] * 8) / seg.duration : 0));
  // A tail segment of a few frames has an inflated rate (a keyframe over a sliver of time); peaks
  // are taken over segments of a second or more when there are any.
  const full = rates.filter((_, i) => segments[i].duration >= 1);
  const peak = Math.max(0, ...(full.length ? full : rates));
  return { peak: Math.ceil(peak), average: total > 0 ? Math.ceil((bytes * 8) / total) : Math.ceil(peak) };
}

/** The RFC 6381 codec of the H.264 stream in an fMP4 init segment: avc1.PPCCLL from its avcC box. */
export function avcCodecOf(init: Uint8Array): string | null {
  const buf = Buffer.from(init.buffer, init.byteOffset, init.byteLength);
  const at = buf.indexOf("avcC");
  if (at < 0 || at + 8 > buf.length) return null;
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  return `avc1.${hex(buf[at + 5])}${hex(buf[at + 6])}${hex(buf[at + 7])}`;
}

/**
 * A media playlist of fMP4 segments, as the encode stores it: every segment written so far behind
 * one init segment, `#EXT-X-ENDLIST` once the rendition is complete. The target duration is the
 * longest segment rounded to the nearest second, as HLS requires.
 */
export function mediaPlaylist(segments: MediaSegment[], map: string, ended: boolean): string {
  const target = Math.max(1, Math.round(Math.max(0, ...segments.map((s) => s.duration))));
  const lines = ["#EXTM3U", "#EXT-X-VERSION:7", `#EXT-X-TARGETDURATION:${target}`, "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-INDEPENDENT-SEGMENTS", `#EXT-X-MAP:URI="${map}"`];
  for (const s of segments) lines.push(`#EXTINF:${s.duration.toFixed(6)},`, s.uri);
  if (ended) lines.push("#EXT-X-ENDLIST");
  return `${lines.join("\n")}\n`;
}
