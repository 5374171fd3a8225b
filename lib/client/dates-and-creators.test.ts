import { describe, expect, it } from "vitest";
import { describeCreator } from "./creator";
import { formatAge, formatDate, formatStableDate } from "./format";

describe("dates on pages", () => {
  const iso = "2026-11-28T19:20:00.000Z";

  it("renders the same stable text whatever the machine's zone, for the server and hydration", () => {
    expect(formatStableDate(iso)).toBe("2026-11-28 19:20 UTC");
    expect(formatStableDate(null)).toBe("—");
    expect(formatStableDate("not a date")).toBe("not a date");
  });

  it("renders the viewer's zone and locale once in the browser", () => {
    expect(formatDate(iso, { locale: "en-US", timeZone: "America/Los_Angeles" })).toMatch(/11:20\sAM/);
    expect(formatDate(iso, { locale: "de-DE", timeZone: "Pacific/Auckland" })).toMatch(/29\.11\.2026.*08:20/);
  });

  it("says an age in the viewer's locale from the clock it is given", () => {
    const now = Date.parse(iso) + 3 * 60_000;
    expect(formatAge(iso, now, "en")).toBe("3 minutes ago");
    expect(formatAge(iso, now, "de")).toBe("vor 3 Minuten");
    expect(formatAge("garbage", now, "en")).toBe("garbage");
  });
});

describe("who made a version", () => {
  const names = { easel_ab12: "website build" };

  it("names people by email, tokens by name, and board links as such", () => {
    expect(describeCreator("user:admin@example.com", names)).toBe("admin@example.com");
    expect(describeCreator("easel_ab12", names)).toBe("API token “website build”");
    expect(describeCreator("easel_zz99", names)).toBe("API token easel_zz99…");
    expect(describeCreator("board:0f3c", names)).toBe("a board access link");
    expect(describeCreator(null, names)).toBeNull();
  });

  it("does not take a prefix that is an object's own key for a token name", () => {
    expect(describeCreator("constructor", {})).toBe("API token constructor…");
  });
});
