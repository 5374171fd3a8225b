import type { Asset } from "../db/schema";
import { ENCODE_ERROR_CODES, type EncodeErrorCode } from "../encode/errors";

/**
 * What each stored encode failure code (lib/encode/errors.ts, docs/video.md) tells a client or a
 * person. The messages are fixed sentences, not the failure's detail: that detail (ffmpeg's last
 * lines, storage errors) can name server paths and goes to the log only.
 */
export const ENCODE_ERROR_MESSAGES: Record<EncodeErrorCode, string> = {
  not_a_video: "The file is not a video, so it has no stream.",
  streaming_not_available: "Streaming was turned off for this workspace before the encode ran.",
  source_missing: "The original file is no longer in storage.",
  unreadable_source: "The file could not be read as media; it may be corrupt or not a media file.",
  no_video_stream: "The file has no video stream (audio only, or only cover art).",
  unsupported_dimensions: "The picture is too small to encode (under 16 pixels on its short side).",
  encode_failed: "Encoding failed on every attempt.",
};

export type EncodeErrorJson = { code: EncodeErrorCode; message: string };

const isCode = (code: string | null): code is EncodeErrorCode => (ENCODE_ERROR_CODES as readonly (string | null)[]).includes(code);

/**
 * The asset's `encode_error` (contract §10): its code and message when `encode_status` is
 * `failed`, else null. A failed asset whose stored code is missing or unknown (written before the
 * codes were fixed) reads as `encode_failed`.
 */
export function encodeErrorJson(asset: Pick<Asset, "encodeStatus" | "encodeError">): EncodeErrorJson | null {
  if (asset.encodeStatus !== "failed") return null;
  const code = isCode(asset.encodeError) ? asset.encodeError : "encode_failed";
  return { code, message: ENCODE_ERROR_MESSAGES[code] };
}
