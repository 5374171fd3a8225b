import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { applyChanges, refetchWorkspace, type LiveChange } from "./live-updates";
import { assetListQuery, keys } from "./queries";

/** A cache holding the queries a workspace's pages read; answers which were marked stale. */
function cacheWith(keysToHold: readonly (readonly unknown[])[]) {
  const qc = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  for (const queryKey of keysToHold) qc.setQueryData(queryKey, { data: "fresh" });
  const stale = () => qc.getQueryCache().getAll().filter((q) => q.isStale()).map((q) => JSON.stringify(q.queryKey)).sort();
  return { qc, stale };
}

const board = (token: string) => assetListQuery("ws", { kind: "board", token, nested: false }).queryKey;
const change = (c: Partial<LiveChange>): LiveChange => ({ id: "01JZ0000000000000000000000", kind: "asset_updated", ...c });

describe("applyChanges: exactly the queries a change touched", () => {
  const held = [
    keys.asset("ws", "A1"),
    [...keys.asset("ws", "A1"), "versions", 1],
    keys.asset("ws", "A2"),
    board("B1"),
    board("B2"),
    assetListQuery("ws", { kind: "all" }).queryKey,
    assetListQuery("ws", { kind: "search", query: "x" }).queryKey,
    keys.asset("other", "A1"),
    assetListQuery("other", { kind: "all" }).queryKey,
    keys.triggers("ws"),
    [...keys.triggers("ws"), "T1", "deliveries"],
    [...keys.triggers("ws"), "T2", "deliveries"],
    keys.boards("ws"),
  ] as const;

  it("an asset change: that asset with its versions, the grids of the boards named, and the workspace-wide lists", async () => {
    const { qc, stale } = cacheWith(held);
    await applyChanges(qc, "ws", [change({ asset: "A1", boards: ["B1"] })]);
    expect(stale()).toEqual(
      [keys.asset("ws", "A1"), [...keys.asset("ws", "A1"), "versions", 1], board("B1"), assetListQuery("ws", { kind: "all" }).queryKey, assetListQuery("ws", { kind: "search", query: "x" }).queryKey]
        .map((k) => JSON.stringify(k))
        .sort(),
    );
  });

  it("boards: null (too many to name) refreshes every board's grid", async () => {
    const { qc, stale } = cacheWith(held);
    await applyChanges(qc, "ws", [change({ asset: "A2", boards: null })]);
    expect(stale()).toContain(JSON.stringify(board("B1")));
    expect(stale()).toContain(JSON.stringify(board("B2")));
    expect(stale()).not.toContain(JSON.stringify(keys.asset("ws", "A1")));
  });

  it("a delivery: that trigger's log and the trigger list, nothing else", async () => {
    const { qc, stale } = cacheWith(held);
    await applyChanges(qc, "ws", [change({ kind: "delivery", trigger: "T1" })]);
    expect(stale()).toEqual([JSON.stringify(keys.triggers("ws")), JSON.stringify([...keys.triggers("ws"), "T1", "deliveries"])].sort());
  });

  it("a reset refreshes everything of the workspace and nothing of another", async () => {
    const { qc, stale } = cacheWith(held);
    await refetchWorkspace(qc, "ws");
    expect(stale()).not.toContain(JSON.stringify(keys.asset("other", "A1")));
    expect(stale()).toHaveLength(held.length - 2);
  });

  it("observed queries are refetched, not only marked", async () => {
    const { qc } = cacheWith([]);
    let reads = 0;
    const observer = new QueryObserver(qc, { queryKey: keys.asset("ws", "A1"), queryFn: async () => ++reads, staleTime: Infinity });
    const stop = observer.subscribe(() => undefined);
    await expect.poll(() => reads).toBe(1);
    await applyChanges(qc, "ws", [change({ asset: "A1", boards: [] })]);
    expect(reads).toBe(2);
    stop();
  });
});

describe("applyChanges: an encode's progress", () => {
  const asset = (token: string, extra: Record<string, unknown> = {}) => ({ token, title: token, encode_status: "queued", encode_progress: null, stream_url: null, ...extra });

  it("moves the cached asset and every cached list holding it, and reads nothing again", async () => {
    const qc = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
    qc.setQueryData(keys.asset("ws", "A1"), { data: asset("A1") });
    qc.setQueryData(board("B1"), { pages: [{ data: [asset("A0"), asset("A1")], pagy: {} }], pageParams: [1] } as never);
    qc.setQueryData(keys.asset("ws", "A2"), { data: asset("A2", { encode_status: "ready", stream_url: "https://x/stream" }) });
    const progress = { fraction: 0.42, rung: "720p", eta_seconds: 30 };
    await applyChanges(qc, "ws", [change({ kind: "encode_progress", asset: "A1", boards: ["B1"], progress }), change({ kind: "encode_progress", asset: "A2", boards: [], progress })]);
    expect(qc.getQueryData<{ data: unknown }>(keys.asset("ws", "A1"))?.data).toMatchObject({ encode_status: "processing", encode_progress: progress });
    const list = qc.getQueryData<{ pages: { data: { token: string; encode_progress: unknown }[] }[] }>(board("B1"));
    expect(list?.pages[0].data.map((a) => a.encode_progress)).toEqual([null, progress]);
    // A stream already published is not put back to encoding by a late report.
    expect(qc.getQueryData<{ data: unknown }>(keys.asset("ws", "A2"))?.data).toMatchObject({ encode_status: "ready", encode_progress: null });
    expect(qc.getQueryCache().getAll().filter((q) => q.isStale())).toEqual([]);
  });
});
