/**
 * Every failure the library reports: `status` is the HTTP status (0 when no answer came: a
 * network error, an abort, a refusal before any request), `code` the API's `extensions.code`
 * (or one of the client's own: `network_error`, `aborted`, `storage_error`,
 * `checksum_mismatch`, `invalid_response`), `extensions` everything else the API said.
 */
export class EaselError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extensions: Record<string, unknown>;

  constructor(status: number, code: string, message: string, extensions: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EaselError";
    this.status = status;
    this.code = code;
    this.extensions = { ...extensions, code };
  }
}

type ErrorEnvelope = { errors?: { message?: unknown; extensions?: Record<string, unknown> }[] };

/** The EaselError of an API answer with status >= 400, read from the error envelope when it has one. */
export function errorFromAnswer(status: number, body: unknown): EaselError {
  const first = (body as ErrorEnvelope | null)?.errors?.[0];
  if (first && typeof first.message === "string") {
    const extensions = first.extensions ?? {};
    const code = typeof extensions.code === "string" ? extensions.code : "unknown";
    return new EaselError(status, code, first.message, extensions);
  }
  return new EaselError(status, status >= 500 ? "internal" : "unknown", `HTTP ${status}`);
}

export const isAbort = (err: unknown) => err instanceof Error && (err.name === "AbortError" || (err instanceof EaselError && err.code === "aborted"));

/** The error to throw once `signal` fired: its reason when that is an error, else an `aborted` EaselError. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof EaselError) return reason;
  return new EaselError(0, "aborted", reason instanceof Error ? reason.message : "the operation was aborted", {}, { cause: reason });
}
