import { abortError, EaselError } from "./errors";

/**
 * When to try a request again: after a network error, a 5xx or a 429, up to `retries` more
 * times. The wait before attempt n+1 is "full jitter" — a random time between 0 and
 * min(maxDelayMs, baseDelayMs × 2^n) — so many clients failing at once do not retry in step; a
 * 429's `Retry-After` (seconds) is honoured instead, up to maxDelayMs, plus up to a second of jitter.
 */
export type RetryOptions = {
  /** Further attempts after the first (default 5; 0 turns retries off). */
  retries?: number;
  /** Upper bound of the first wait, doubled per attempt (default 300 ms). */
  baseDelayMs?: number;
  /** The longest single wait (default 30 s). */
  maxDelayMs?: number;
  /** Called before each wait (logging, tests). */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /** [0, 1) source of the jitter (tests pin it). */
  random?: () => number;
};

export const DEFAULT_RETRY = { retries: 5, baseDelayMs: 300, maxDelayMs: 30_000 } as const;

export const isRetryableStatus = (status: number) => status >= 500 || status === 429;

/** Milliseconds to wait before the attempt after failed attempt number `attempt` (0-based). */
export function retryDelay(attempt: number, opts: RetryOptions = {}, retryAfterHeader?: string | null): number {
  const base = opts.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const max = opts.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const random = opts.random ?? Math.random;
  const retryAfter = parseRetryAfter(retryAfterHeader);
  if (retryAfter !== null) return Math.min(max, retryAfter * 1000 + Math.floor(random() * 1000));
  return Math.floor(random() * Math.min(max, base * 2 ** attempt));
}

/** `Retry-After` as seconds (a number of seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(header: string | null | undefined): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

/** Waits `ms`, or rejects as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export type Fetch = (input: Request) => Promise<Response>;

/** An answer as the retry loop sees it: its status, a 429's Retry-After, and how to let go of an answer that is not used. */
export type Attempted = { status: number; retryAfter: string | null; release: () => Promise<void> };

/**
 * Runs `attempt` until it gives an answer that is neither a 5xx nor a 429 or the attempts run
 * out, and returns the last answer; a network error on the last attempt throws a
 * `network_error` EaselError. An abort stops at once, also during a wait.
 */
export async function retrying<T>(attempt: () => Promise<T>, view: (answer: T) => Attempted, opts: RetryOptions & { signal?: AbortSignal | null } = {}): Promise<T> {
  const retries = opts.retries ?? DEFAULT_RETRY.retries;
  const signal = opts.signal ?? undefined;
  for (let n = 0; ; n++) {
    if (signal?.aborted) throw abortError(signal);
    let reason: string;
    let retryAfter: string | null = null;
    try {
      const answer = await attempt();
      const seen = view(answer);
      if (!isRetryableStatus(seen.status) || n >= retries) return answer;
      reason = `HTTP ${seen.status}`;
      retryAfter = seen.status === 429 ? seen.retryAfter : null;
      // The answer is not used: release its connection before waiting.
      await seen.release();
    } catch (err) {
      if (signal?.aborted) throw abortError(signal);
      if (err instanceof EaselError) throw err;
      if (n >= retries) throw new EaselError(0, "network_error", `network error: ${describe(err)}`, {}, { cause: err });
      reason = describe(err);
    }
    const delayMs = retryDelay(n, opts, retryAfter);
    opts.onRetry?.({ attempt: n + 1, delayMs, reason });
    await sleep(delayMs, signal);
  }
}

/** `retrying` for fetch: a fresh Request per attempt (a body can be read once). */
export function fetchWithRetry(fetchImpl: Fetch, makeRequest: () => Request, opts: RetryOptions & { signal?: AbortSignal | null } = {}): Promise<Response> {
  return retrying(
    () => fetchImpl(makeRequest()),
    (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), release: async () => void (await r.body?.cancel().catch(() => undefined)) }),
    opts,
  );
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}
