import { afterEach, describe, expect, it } from "vitest";
import { sampleOpenFiles, softLimitOf, type OpenFilesEstimate, type OpenFilesReading } from "./open-files";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let estimate: OpenFilesEstimate | undefined;
afterEach(() => estimate?.stop());

describe("open-file estimate", () => {
  it("reads the soft limit of /proc/self/limits", () => {
    const text = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 20000                files\n";
    expect(softLimitOf(text)).toBe(1024);
    expect(softLimitOf("Max open files            unlimited            unlimited            files")).toBe(Infinity);
  });

  it("is tight from 80 % of the limit, counting bodies admitted since the last reading", async () => {
    let reading: OpenFilesReading = { open: 790, limit: 1000 };
    estimate = sampleOpenFiles(async () => reading, 20);
    await sleep(30);
    expect(estimate.tight()).toBe(false);
    for (let i = 0; i < 10; i++) estimate.opened();
    expect(estimate.current()).toEqual({ open: 800, limit: 1000 });
    expect(estimate.tight()).toBe(true);
    reading = { open: 500, limit: 1000 };
    await sleep(50);
    expect(estimate.tight()).toBe(false);
  });

  it("reads this process's real /proc/self/fd", async () => {
    estimate = sampleOpenFiles(undefined, 20);
    await sleep(50);
    const now = estimate.current();
    expect(now?.open).toBeGreaterThan(3);
    expect(now?.limit).toBeGreaterThan(now?.open ?? Infinity);
  });

  it("admits everything while no reading can be taken (logged once)", async () => {
    estimate = sampleOpenFiles(async () => Promise.reject(new Error("no /proc")), 10);
    await sleep(40);
    expect(estimate.current()).toBeNull();
    expect(estimate.tight()).toBe(false);
  });
});
