import { env } from "../env";

/** The limits every child that reads an uploaded file runs under (docs/security.md). */
export type MediaLimits = { timeoutMs: number; memoryBytes: number };

/** EASEL_MEDIA_TIMEOUT_S (default 120) and EASEL_MEDIA_MEMORY_MB (default 1024). */
export function mediaLimits(): MediaLimits {
  const e = env();
  return { timeoutMs: e.EASEL_MEDIA_TIMEOUT_S * 1000, memoryBytes: e.EASEL_MEDIA_MEMORY_MB * 1024 * 1024 };
}

/**
 * An encode's wall-time limit: EASEL_MEDIA_TIMEOUT_S per minute of probed source, never less than
 * EASEL_MEDIA_TIMEOUT_S. A real ten-minute clip takes minutes to encode on two cores, so a flat
 * limit would fail it; a file that lies about its duration is bounded by the decode of what it
 * claims, and a source of unknown duration gets the flat limit.
 */
export function encodeTimeoutMs(durationSeconds: number | null | undefined, limits: MediaLimits = mediaLimits()): number {
  const minutes = durationSeconds && durationSeconds > 0 ? durationSeconds / 60 : 0;
  return Math.max(limits.timeoutMs, Math.ceil(limits.timeoutMs * minutes));
}
