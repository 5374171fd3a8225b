import { describe, expect, it } from "vitest";
import { encodesOnUpload, isRevertable, revertWindowDays, versioningAllowed } from "./plans";

const ws = (plan: string, trialOf: string | null = null) => ({ plan, trialOf }) as never;
const day = 86_400_000;
const t0 = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

describe("plans", () => {
  it.each([
    ["free", null, 7, true, false],
    ["pro", null, 7, true, false],
    ["creative", null, null, false, false],
    ["team", null, null, true, true],
    ["business", null, null, true, true],
    ["enterprise", null, null, true, true],
    ["free", "team", null, true, true],
    ["creative", "pro", 7, true, false],
    ["team", "free", 7, true, false],
  ])("%s trial of %s: window %s, versioning %s, encode on upload %s", (plan, trial, window, versioning, encodes) => {
    expect(revertWindowDays(ws(plan, trial))).toBe(window);
    expect(versioningAllowed(ws(plan, trial))).toBe(versioning);
    expect(encodesOnUpload(ws(plan, trial))).toBe(encodes);
  });

  it("measures the 7-day window from created_at, inclusive", () => {
    expect(isRevertable(ws("free"), t0, at(6 * day + 23 * 3600e3))).toBe(true);
    expect(isRevertable(ws("free"), t0, at(7 * day))).toBe(true);
    expect(isRevertable(ws("free"), t0, at(7 * day + 1000))).toBe(false);
    expect(isRevertable(ws("team"), t0, at(3650 * day))).toBe(true);
    expect(isRevertable(ws("creative"), t0, t0)).toBe(false);
  });
});
