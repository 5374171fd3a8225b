import { ApiClientError } from "../api";

/**
 * Runs one action over many items with at most `concurrency` in flight, reporting progress after
 * each item and collecting every failure with the API's code and message. Failures never stop
 * the run: the rest of the items are still tried. An aborted run starts no further items.
 */
export type BulkFailure<T> = { item: T; code: string; message: string };
export type BulkProgress = { done: number; total: number; failed: number };
export type BulkResult<T> = { succeeded: T[]; failed: BulkFailure<T>[]; aborted: boolean };

export function failureOf(err: unknown): { code: string; message: string } {
  if (err instanceof ApiClientError) return { code: err.code, message: err.message };
  if (err instanceof Error) return { code: err.name === "AbortError" ? "aborted" : "client_error", message: err.message };
  return { code: "client_error", message: String(err) };
}

export async function runBulk<T>(
  items: readonly T[],
  action: (item: T, signal: AbortSignal | undefined) => Promise<unknown>,
  opts: { concurrency?: number; signal?: AbortSignal; onProgress?: (p: BulkProgress) => void } = {},
): Promise<BulkResult<T>> {
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 4));
  const succeeded: T[] = [];
  const failed: BulkFailure<T>[] = [];
  let next = 0;
  const report = () => opts.onProgress?.({ done: succeeded.length + failed.length, total: items.length, failed: failed.length });
  const worker = async () => {
    while (next < items.length && !opts.signal?.aborted) {
      const item = items[next++];
      try {
        await action(item, opts.signal);
        succeeded.push(item);
      } catch (err) {
        failed.push({ item, ...failureOf(err) });
      }
      report();
    }
  };
  report();
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { succeeded, failed, aborted: opts.signal?.aborted === true && succeeded.length + failed.length < items.length };
}
