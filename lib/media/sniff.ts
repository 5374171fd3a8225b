import { startsWithMpegAudioFrames } from "./mpeg-audio-frame";

/** How much of a file's start sniffMediaType reads: enough for two MPEG audio frame headers (MPEG_AUDIO_HEAD_BYTES). */
export const SNIFF_BYTES = 4096;

/**
 * The media type of a file from its first bytes (SNIFF_BYTES of them). Clients declare a type at
 * upload_prepare; the processing job trusts the bytes instead when they are recognised. null = not
 * recognised (the declared type stands).
 */
export function sniffMediaType(head: Uint8Array): string | null {
  const b = head;
  const at = (offset: number, ...bytes: number[]) => bytes.every((v, i) => b[offset + i] === v);
  const ascii = (offset: number, text: string) => at(offset, ...[...text].map((c) => c.charCodeAt(0)));
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  if (ascii(0, "RIFF") && ascii(8, "WAVE")) return "audio/wav";
  if (ascii(0, "RIFF") && ascii(8, "AVI ")) return "video/x-msvideo";
  if (ascii(0, "%PDF-")) return "application/pdf";
  if (at(0, 0x1a, 0x45, 0xdf, 0xa3)) return "video/webm";
  if (ascii(0, "ID3") || startsWithMpegAudioFrames(b)) return "audio/mpeg";
  if (ascii(0, "OggS")) return "audio/ogg";
  if (ascii(0, "fLaC")) return "audio/flac";
  if (ascii(4, "ftyp")) {
    const brand = String.fromCharCode(...b.slice(8, 12));
    if (brand.startsWith("qt")) return "video/quicktime";
    if (brand === "avif" || brand === "avis") return "image/avif";
    if (brand === "heic" || brand === "heix" || brand === "mif1") return "image/heic";
    if (brand === "M4A " || brand === "M4B ") return "audio/mp4";
    return "video/mp4";
  }
  if (at(0, 0x49, 0x49, 0x2a, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2a)) return "image/tiff";
  if (ascii(0, "<svg") || ascii(0, "<?xml")) return null; // text formats: keep the declared type
  return null;
}

export const isImage = (t: string) => t.startsWith("image/");
export const isVideo = (t: string) => t.startsWith("video/");
export const isAudio = (t: string) => t.startsWith("audio/");
