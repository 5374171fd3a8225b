import { describe, expect, it } from "vitest";
import { nextCronTime, parseCron } from "./cron";

const next = (cron: string, after: string) => nextCronTime(parseCron(cron), new Date(after)).toISOString();

describe("cron", () => {
  it.each([
    ["* * * * *", "2030-01-01T12:00:30Z", "2030-01-01T12:01:00.000Z"],
    ["* * * * *", "2030-01-01T12:01:00Z", "2030-01-01T12:02:00.000Z"],
    ["*/15 * * * *", "2030-01-01T12:01:00Z", "2030-01-01T12:15:00.000Z"],
    ["23 * * * *", "2030-01-01T12:30:00Z", "2030-01-01T13:23:00.000Z"],
    ["0 0 * * *", "2030-12-31T23:59:00Z", "2031-01-01T00:00:00.000Z"],
    ["0 9 * * MON-FRI", "2030-01-04T10:00:00Z", "2030-01-07T09:00:00.000Z"], // Friday → Monday
    ["0 0 1,15 * *", "2030-02-02T00:00:00Z", "2030-02-15T00:00:00.000Z"],
    ["0 0 29 2 *", "2030-03-01T00:00:00Z", "2032-02-29T00:00:00.000Z"],
    ["0 0 13 * 5", "2030-01-01T00:00:00Z", "2030-01-04T00:00:00.000Z"], // day-of-month OR day-of-week
    ["@hourly", "2030-01-01T12:00:00Z", "2030-01-01T13:00:00.000Z"],
    ["TZ=UTC 30 6 * * 0", "2030-01-01T00:00:00Z", "2030-01-06T06:30:00.000Z"],
  ])("%s after %s → %s", (cron, after, expected) => {
    expect(next(cron, after)).toBe(expected);
  });

  it.each(["* * * *", "61 * * * *", "*/0 * * * *", "TZ=Europe/Paris 0 * * * *"])("refuses %s", (cron) => {
    expect(() => parseCron(cron)).toThrow();
  });
});
