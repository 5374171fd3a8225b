import { afterAll, describe, expect, it } from "vitest";
import { liveChildren, stopMediaChildren } from "../../lib/sandbox/children";
import { limitOf, MediaLimitError, MediaStoppedError } from "../../lib/sandbox/limit-error";
import { encodeTimeoutMs } from "../../lib/sandbox/limits";
import { MediaChildError, runLimited } from "../../lib/sandbox/run-limited";

/**
 * The runner every decode of an uploaded file goes through (lib/sandbox/run-limited.ts): the
 * kernel holds the child to its memory limit, a timer to its wall time, and each way out is told
 * apart (over a limit, ended by a stop, failed on its own).
 */
afterAll(() => {
  // The stop below marks this process as stopping; later files in the same worker start afresh.
  (globalThis as { __easelMediaChildren?: { stopping: boolean } }).__easelMediaChildren!.stopping = false;
});

const MB = 1024 * 1024;

describe("runLimited", () => {
  it("gives the child its memory limit as the kernel's RLIMIT_DATA", async () => {
    const { stdout } = await runLimited("cat", ["/proc/self/limits"], { what: "cat", memoryBytes: 200 * MB });
    const line = stdout.split("\n").find((l) => l.startsWith("Max data size"));
    expect(line?.split(/\s{2,}/).slice(1, 3)).toEqual([String(200 * MB), String(200 * MB)]);
  });

  it("stops a child that allocates past its memory limit: memory_limit", async () => {
    // 400 MB of zeroed buffer under a 160 MB limit: the allocation fails inside the child.
    const started = Date.now();
    const err = await runLimited(process.execPath, ["-e", "const b = Buffer.alloc(400 * 1024 * 1024); console.log(b.length)"], { what: "the allocation", memoryBytes: 160 * MB }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaLimitError);
    expect((err as MediaLimitError).code).toBe("memory_limit");
    expect((err as MediaLimitError).summary).toBe("the allocation needed more than its memory limit of 160 MB and was stopped");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("runs the same allocation within a larger limit", async () => {
    const { stdout } = await runLimited(process.execPath, ["-e", "const b = Buffer.alloc(100 * 1024 * 1024); console.log(b.length)"], { what: "the allocation", memoryBytes: 400 * MB });
    expect(stdout.trim()).toBe(String(100 * MB));
  });

  it("kills a child at its wall-time limit: time_limit, and nothing is left running", async () => {
    const started = Date.now();
    const err = await runLimited("sleep", ["30"], { what: "sleep", timeoutMs: 500 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(MediaLimitError);
    expect(limitOf(err)).toEqual({ code: "time_limit", message: "sleep ran longer than its time limit of 1 s and was stopped" });
    expect(liveChildren()).toBe(0);
  });

  it("reports a child's own failure as such, not as a limit", async () => {
    const err = await runLimited(process.execPath, ["-e", "console.error('bad input'); process.exit(3)"], { what: "the check" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaChildError);
    expect((err as Error).message).toBe("the check failed (exit 3): bad input");
    expect(limitOf(err)).toBeNull();
  });

  it("reads a limit back from a step error's serialised message", () => {
    const wrapped = new Error("NonRetriableError: encode_failed: 720p: time_limit: ffmpeg ran longer than its time limit of 120 s and was stopped | frame= 12");
    expect(limitOf(wrapped)).toEqual({ code: "time_limit", message: "ffmpeg ran longer than its time limit of 120 s and was stopped" });
  });

  it("gives an encode the time limit per minute of source, never less than the limit itself", () => {
    const limits = { timeoutMs: 120_000, memoryBytes: 1024 * MB };
    expect(encodeTimeoutMs(null, limits)).toBe(120_000);
    expect(encodeTimeoutMs(10, limits)).toBe(120_000);
    expect(encodeTimeoutMs(600, limits)).toBe(1_200_000);
    expect(encodeTimeoutMs(1800, limits)).toBe(3_600_000);
  });

  // Last: the stop marks this process as stopping.
  it("ends every live child at a stop, as a stop and not a limit, and starts none after it", async () => {
    const running = Promise.all([1, 2].map(() => runLimited("sleep", ["30"], { what: "sleep" }).catch((e: unknown) => e)));
    while (liveChildren() < 2) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    expect(stopMediaChildren()).toBe(2);
    const errors = await running;
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const err of errors) expect(err).toBeInstanceOf(MediaStoppedError);
    expect(await runLimited("true", [], { what: "true" }).catch((e: unknown) => e)).toBeInstanceOf(MediaStoppedError);
  });
});
