import { describe, expect, it } from "vitest";
import { ApiClientError } from "../api";
import { runBulk, type BulkProgress } from "./bulk-runner";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("runBulk", () => {
  it("runs every item with at most `concurrency` in flight and reports n of N", async () => {
    let inFlight = 0;
    let peak = 0;
    const progress: BulkProgress[] = [];
    const result = await runBulk(
      Array.from({ length: 10 }, (_, i) => i),
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick();
        inFlight--;
      },
      { concurrency: 4, onProgress: (p) => progress.push(p) },
    );
    expect(peak).toBe(4);
    expect(result.succeeded.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result.failed).toEqual([]);
    expect(progress[0]).toEqual({ done: 0, total: 10, failed: 0 });
    expect(progress.at(-1)).toEqual({ done: 10, total: 10, failed: 0 });
    expect(progress.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("reports each failure with its item, code and message, and carries on", async () => {
    const result = await runBulk(["a", "gone", "c", "bad"], async (t) => {
      await tick();
      if (t === "gone") throw new ApiClientError(404, "asset_not_found", "Asset not found");
      if (t === "bad") throw new Error("boom");
    });
    expect(result.succeeded.sort()).toEqual(["a", "c"]);
    expect(result.failed).toEqual(
      expect.arrayContaining([
        { item: "gone", code: "asset_not_found", message: "Asset not found" },
        { item: "bad", code: "client_error", message: "boom" },
      ]),
    );
    expect(result.failed).toHaveLength(2);
    expect(result.aborted).toBe(false);
  });

  it("starts nothing more once aborted", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const result = await runBulk(
      [1, 2, 3, 4, 5, 6],
      async (n) => {
        started.push(n);
        if (n === 2) controller.abort();
        await tick();
      },
      { concurrency: 2, signal: controller.signal },
    );
    expect(started).toEqual([1, 2]);
    expect(result.aborted).toBe(true);
  });

  it("handles an empty list", async () => {
    const progress: BulkProgress[] = [];
    const result = await runBulk([], async () => undefined, { onProgress: (p) => progress.push(p) });
    expect(result).toEqual({ succeeded: [], failed: [], aborted: false });
    expect(progress).toEqual([{ done: 0, total: 0, failed: 0 }]);
  });
});
