import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE, retrySchedule } from "./retry-schedule";

describe("retrySchedule", () => {
  it("is the contract's eight attempts by default", () => {
    expect(retrySchedule(undefined)).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retrySchedule("  ")).toEqual([...DEFAULT_RETRY_SCHEDULE]);
  });

  it("reads the override in seconds, one attempt per entry", () => {
    expect(retrySchedule("0,1,1")).toEqual([0, 1, 1]);
    expect(retrySchedule(" 0 , 0.5 ,2 ")).toEqual([0, 0.5, 2]);
    expect(retrySchedule("0")).toEqual([0]);
  });

  it("refuses a malformed override", () => {
    for (const bad of ["0,,5", "a,b", "0,-1", "5,Infinity", "0;5"]) expect(() => retrySchedule(bad)).toThrow(/EASEL_WEBHOOK_RETRY_SCHEDULE/);
  });
});
