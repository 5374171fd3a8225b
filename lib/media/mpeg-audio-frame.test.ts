import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { binaries, run } from "./ffmpeg";
import { MPEG_AUDIO_HEAD_BYTES, mpegAudioFrameAt, startsWithMpegAudioFrames } from "./mpeg-audio-frame";
import { SNIFF_BYTES, sniffMediaType } from "./sniff";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-mpeg-audio-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Half a second of tone, without an ID3 tag or Xing frame: the file starts with an audio frame. */
async function encoded(codec: "libmp3lame" | "mp2", rate: number, bitrate: string): Promise<Uint8Array> {
  const file = path.join(dir, `${codec}-${rate}-${bitrate}.${codec === "mp2" ? "mp2" : "mp3"}`);
  const tagless = codec === "libmp3lame" ? ["-id3v2_version", "0", "-write_xing", "0"] : [];
  await run(binaries().ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", `sine=frequency=440:duration=0.5:sample_rate=${rate}`, "-map_metadata", "-1", ...tagless, "-c:a", codec, "-b:a", bitrate, "-ar", String(rate), file]);
  return new Uint8Array(fs.readFileSync(file)).subarray(0, SNIFF_BYTES);
}

/** The same pseudo-random bytes on every run (AES-256-CTR of zeros, the seed as the counter's start), so the count below is exact. */
const KEY = Buffer.alloc(32, 7);
function seededBytes(seed: number, length: number): Uint8Array {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(seed, 0);
  return crypto.createCipheriv("aes-256-ctr", KEY, iv).update(Buffer.alloc(length));
}

describe("MPEG audio without an ID3 tag", () => {
  it.each<["libmp3lame" | "mp2", number, string]>([
    ["libmp3lame", 44100, "128k"],
    ["libmp3lame", 32000, "320k"],
    ["libmp3lame", 48000, "32k"],
    ["libmp3lame", 22050, "64k"],
    ["libmp3lame", 8000, "8k"],
    ["mp2", 32000, "384k"],
  ])("%s at %i Hz, %s: audio/mpeg", async (codec, rate, bitrate) => {
    const head = await encoded(codec, rate, bitrate);
    expect(head[0]).toBe(0xff);
    expect(sniffMediaType(head)).toBe("audio/mpeg");
  });

  it("a UTF-16 text file's byte-order mark (FF FE) is no frame: the declared type stands", () => {
    const text = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Hex,size\r\nposter.png,1204\r\n".repeat(40), "utf16le")]);
    expect(mpegAudioFrameAt(text, 0)).not.toBeNull(); // the four bytes alone do pass for a header
    expect(sniffMediaType(text)).toBeNull();
  });

  it("one valid header followed by anything else is not MPEG audio", () => {
    const head = Buffer.alloc(2048, 0x41);
    head.set([0xff, 0xfb, 0x90, 0xc4]); // MPEG-1 layer III, 128 kbit/s, 44.1 kHz: a 417-byte frame
    expect(mpegAudioFrameAt(head, 0)?.length).toBe(417);
    expect(sniffMediaType(head)).toBeNull();
    head.set([0xff, 0xfb, 0x90, 0xc4], 417);
    expect(sniffMediaType(head)).toBe("audio/mpeg");
    head.set([0xff, 0xf3, 0x90, 0xc4], 417); // a second header of another version (MPEG-2)
    expect(startsWithMpegAudioFrames(head)).toBe(false);
  });

  it("20,000 files of random bytes: none taken for MPEG audio (the sync word alone matches about one in 2,048)", () => {
    let syncWords = 0;
    let sniffed = 0;
    for (let seed = 0; seed < 20_000; seed++) {
      const head = seededBytes(seed, SNIFF_BYTES);
      if (head[0] === 0xff && (head[1] & 0xe0) === 0xe0) syncWords++;
      if (sniffMediaType(head) === "audio/mpeg") sniffed++;
    }
    expect(syncWords).toBeGreaterThan(0);
    expect(sniffed).toBe(0);
  });

  it("the sniffed head holds the longest frame and the next header", () => {
    let longest = 0;
    for (let b1 = 0xe0; b1 <= 0xff; b1++) {
      for (let b2 = 0; b2 <= 0xff; b2++) longest = Math.max(longest, mpegAudioFrameAt(new Uint8Array([0xff, b1, b2, 0]), 0)?.length ?? 0);
    }
    expect(MPEG_AUDIO_HEAD_BYTES).toBe(longest + 4);
    expect(SNIFF_BYTES).toBeGreaterThanOrEqual(MPEG_AUDIO_HEAD_BYTES);
  });
});
