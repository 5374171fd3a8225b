import { env } from "../env";

/** Delay before each attempt of a message, in seconds: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

/**
 * The delivery schedule: EASEL_WEBHOOK_RETRY_SCHEDULE (seconds, comma-separated) or the default.
 * Its length is the number of attempts. A malformed value throws rather than silently falling back,
 * so a typo in the environment shows up as failed delivery runs instead of an unexpected schedule.
 */
export function retrySchedule(raw: string | undefined = env().EASEL_WEBHOOK_RETRY_SCHEDULE): number[] {
  if (raw === undefined || raw.trim() === "") return [...DEFAULT_RETRY_SCHEDULE];
  const delays = raw.split(",").map((part) => part.trim());
  const parsed = delays.map(Number);
  if (delays.some((d) => d === "") || parsed.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`EASEL_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds (e.g. "0,5,300"), got "${raw}"`);
  }
  return parsed;
}
