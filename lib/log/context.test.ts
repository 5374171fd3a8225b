import { describe, expect, it } from "vitest";
import { createLogger, currentLogContext, withLogContext } from "./logger.mjs";

describe("log context", () => {
  it("adds its fields to every line inside it, and one line's own fields stay on that line", () => {
    const chunks: string[] = [];
    const logger = createLogger({ level: "info", format: "json", destination: { write: (s: string) => chunks.push(s) } as never });
    withLogContext({ request_id: "r-1" }, () => {
      logger.info({ asset_id: 7 }, "first");
      logger.info("second");
      withLogContext({ run_id: "run-9", function: "process-asset" }, () => logger.info("nested"));
      expect(currentLogContext()).toEqual({ request_id: "r-1" });
    });
    logger.info("outside");
    const lines = chunks.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(lines.map(({ time: _time, level: _level, ...rest }) => rest)).toEqual([
      { request_id: "r-1", asset_id: 7, msg: "first" },
      { request_id: "r-1", msg: "second" },
      { request_id: "r-1", run_id: "run-9", function: "process-asset", msg: "nested" },
      { msg: "outside" },
    ]);
  });
});
