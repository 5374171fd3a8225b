import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * After a write, the queries under `queryKey` load afresh. A page's first load of them may still
 * be in flight, started before the write: TanStack Query lets an invalidation join an in-flight
 * fetch of a query that has no data yet instead of starting another, so the page would show a
 * list without what was just created. That fetch is cancelled first.
 */
export async function reloadAfterWrite(qc: QueryClient, queryKey: QueryKey): Promise<void> {
  await qc.cancelQueries({ queryKey });
  await qc.invalidateQueries({ queryKey });
}
