import { afterEach, expect, it } from "vitest";
import { setClockNow, systemClock } from "../clock";
import { resetEnvCache } from "../env";
import { handleTestClock } from "./test-clock";

const post = (body: string) => handleTestClock(new Request("http://easel.test/api/test/clock", { method: "POST", body }));

afterEach(() => {
  delete process.env.EASEL_TEST_CLOCK;
  resetEnvCache();
  setClockNow(null);
});

it("does not exist without EASEL_TEST_CLOCK", async () => {
  const res = await post(JSON.stringify({ now: "2030-01-01T00:00:00Z" }));
  expect(res.status).toBe(404);
  expect(Math.abs(systemClock().getTime() - Date.now())).toBeLessThan(1000);
});

it("moves the clock and returns to real time", async () => {
  process.env.EASEL_TEST_CLOCK = "1";
  resetEnvCache();
  expect((await post(JSON.stringify({ now: "2030-01-01T00:00:00Z" }))).status).toBe(200);
  expect(Math.abs(systemClock().getTime() - Date.parse("2030-01-01T00:00:00Z"))).toBeLessThan(1000);
  expect((await post(JSON.stringify({ now: null }))).status).toBe(200);
  expect(Math.abs(systemClock().getTime() - Date.now())).toBeLessThan(1000);
  expect((await post(JSON.stringify({ now: "yesterday" }))).status).toBe(422);
  expect((await post("{")).status).toBe(400);
});
