/** What stopped a media child: the wall time, or the memory it may take. Stored on the asset as processing_error.code. */
export type LimitCode = "time_limit" | "memory_limit";

/**
 * A child went over EASEL_MEDIA_TIMEOUT_S or EASEL_MEDIA_MEMORY_MB: the file's fault, retrying
 * cannot help. `summary` is the sentence stored on the asset (what and which limit, no server
 * paths); `detail` (the child's last words) goes to the log only.
 */
export class MediaLimitError extends Error {
  constructor(
    readonly code: LimitCode,
    readonly summary: string,
    readonly detail = "",
  ) {
    // The code leads the message: step errors reach job handlers serialised, message and all.
    super(`${code}: ${summary}${detail ? ` | ${detail}` : ""}`);
    this.name = "MediaLimitError";
  }
}

/**
 * The limit an error reports, also after a step's serialisation turned it into a plain Error whose
 * message wraps the original ("encode_failed: 720p: time_limit: ffmpeg ran longer … | detail"),
 * as the code and summary stored on the asset; null for any other error.
 */
export function limitOf(err: unknown): { code: LimitCode; message: string } | null {
  if (err instanceof MediaLimitError) return { code: err.code, message: err.summary };
  const text = err instanceof Error ? err.message : String(err);
  const found = /(?:^|: )(time_limit|memory_limit): ([^|]*)/.exec(text);
  return found ? { code: found[1] as LimitCode, message: found[2].trim() } : null;
}

/** The server is stopping and ended the child: not the file's fault, so the step must run again later. */
export class MediaStoppedError extends Error {
  constructor(what: string) {
    super(`${what} was ended because the server is stopping`);
    this.name = "MediaStoppedError";
  }
}
