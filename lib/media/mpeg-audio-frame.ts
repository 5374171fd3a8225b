/**
 * MPEG audio (MP3 and its layers I and II) without an ID3 tag starts straight with a frame
 * header, whose 11-bit sync word (0xFFE) alone is common in other bytes: a UTF-16 text file's
 * byte-order mark (FF FE) carries it, and so does one random file in 2,048. A file is taken for
 * MPEG audio only when its first header is valid and a second valid header of the same stream
 * starts exactly where the first frame ends, so a chance match is about one in ten million.
 *
 * Written here rather than taken from a library: the sniffers on npm detect MP3 by the sync word
 * alone (or load the whole file), and the check is these two tables and one formula.
 */

type FrameHeader = { version: number; layer: number; sampleRate: number; length: number };

/** kbit/s by bitrate index 1–14, for MPEG-1 layers I, II, III and MPEG-2/2.5 layers I and II/III. */
const BITRATES = {
  v1l1: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l23: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};

/** Hz by sample-rate index 0–2, for version bits 3 (MPEG-1), 2 (MPEG-2) and 0 (MPEG-2.5). */
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The frame header at `at`, or null when those four bytes are not one (reserved or free-format values). */
export function mpegAudioFrameAt(b: Uint8Array, at: number): FrameHeader | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return null;
  const version = (b[at + 1] >> 3) & 0b11; // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layerBits = (b[at + 1] >> 1) & 0b11; // 1: layer III, 2: layer II, 3: layer I, 0: reserved
  const bitrateIndex = b[at + 2] >> 4; // 0: free format (no length to check), 15: invalid
  const rateIndex = (b[at + 2] >> 2) & 0b11; // 3: reserved
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const layer = 4 - layerBits;
  const mpeg1 = version === 3;
  const table = mpeg1 ? [BITRATES.v1l1, BITRATES.v1l2, BITRATES.v1l3][layer - 1] : layer === 1 ? BITRATES.v2l1 : BITRATES.v2l23;
  const bitsPerSecond = table[bitrateIndex - 1] * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (b[at + 2] >> 1) & 1;
  const length =
    layer === 1
      ? (Math.floor((12 * bitsPerSecond) / sampleRate) + padding) * 4
      : Math.floor(((layer === 3 && !mpeg1 ? 72 : 144) * bitsPerSecond) / sampleRate) + padding;
  return { version, layer, sampleRate, length };
}

/** The longest frame (MPEG-2.5 layer II, 160 kbit/s at 8 kHz, padded) plus the next header: the head a check needs. */
export const MPEG_AUDIO_HEAD_BYTES = 2881 + 4;

/** Two consecutive frames of one stream at the start of the file. */
export function startsWithMpegAudioFrames(b: Uint8Array): boolean {
  const first = mpegAudioFrameAt(b, 0);
  if (!first) return false;
  const second = mpegAudioFrameAt(b, first.length);
  return second !== null && second.version === first.version && second.layer === first.layer && second.sampleRate === first.sampleRate;
}
