import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { reloadAfterWrite } from "./reload-after-write";

/** A list whose first load is slow and started before a write: what the page shows afterwards. */
async function listAfterWrite(refresh: (qc: QueryClient) => Promise<void>): Promise<string[] | undefined> {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const stored: string[] = [];
  const queryKey = ["triggers"];
  // Each load answers what is stored when it starts; the first one takes longer to come back.
  let loads = 0;
  const queryFn = async () => {
    const snapshot = [...stored];
    await new Promise((r) => setTimeout(r, loads++ === 0 ? 80 : 5));
    return snapshot;
  };
  const observer = new QueryObserver(qc, { queryKey, queryFn });
  const unsubscribe = observer.subscribe(() => undefined); // the page's list, loading
  await new Promise((r) => setTimeout(r, 10));
  stored.push("new trigger"); // the write lands while the first load is in flight
  await refresh(qc);
  await new Promise((r) => setTimeout(r, 150));
  unsubscribe();
  return qc.getQueryData<string[]>(queryKey);
}

describe("reloadAfterWrite", () => {
  it("shows what was written even when the first load, started before the write, is still in flight", async () => {
    expect(await listAfterWrite((qc) => reloadAfterWrite(qc, ["triggers"]))).toEqual(["new trigger"]);
  });

  it("is needed: an invalidation alone joins the older load and shows the list without it", async () => {
    expect(await listAfterWrite((qc) => qc.invalidateQueries({ queryKey: ["triggers"] }))).toEqual([]);
  });
});
