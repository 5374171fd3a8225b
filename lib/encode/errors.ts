/**
 * Why an encode failed, as stored in `assets.encode_error`. Codes are short and stable so that
 * clients and the admin UI can branch on them; the detail goes to the log.
 */
export const ENCODE_ERROR_CODES = [
  /** The asset is not a video (its media type, or the probe found no picture: audio-only files). */
  "not_a_video",
  /** The workspace turned streaming off after the encode was queued. */
  "streaming_not_available",
  /** The original bytes are no longer in storage. */
  "source_missing",
  /** ffprobe could not read the file (corrupt or not a media file). */
  "unreadable_source",
  /** A media file without a video stream (cover art does not count). */
  "no_video_stream",
  /** Width or height too small to encode. */
  "unsupported_dimensions",
  /** ffmpeg failed on every attempt, or produced no segments. */
  "encode_failed",
] as const;

export type EncodeErrorCode = (typeof ENCODE_ERROR_CODES)[number];

/** A failure whose code is stored on the asset. `permanent`: retrying the step cannot help. */
export class EncodeFailure extends Error {
  constructor(
    readonly code: EncodeErrorCode,
    detail: string,
    readonly permanent = true,
  ) {
    // The code leads the message: step errors reach the job handler serialised, message and all.
    super(`${code}: ${detail}`);
    this.name = "EncodeFailure";
  }
}

/** The code of an error that went through a step's serialisation, or `encode_failed`. */
export function encodeErrorCode(err: unknown): EncodeErrorCode {
  const message = err instanceof Error ? err.message : String(err);
  const code = /^(?:[A-Za-z]+Error: )?([a-z_]+):/.exec(message)?.[1];
  return (ENCODE_ERROR_CODES as readonly string[]).includes(code ?? "") ? (code as EncodeErrorCode) : "encode_failed";
}
