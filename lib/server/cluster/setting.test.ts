import { describe, expect, it } from "vitest";
import { workersFromEnv } from "./setting.mjs";

const PG = "postgres://db/easel";

describe("EASEL_WORKERS", () => {
  it("defaults to one per core on PostgreSQL and to one on the embedded database", () => {
    expect(workersFromEnv({ testClock: "", value: undefined, databaseUrl: PG, cores: 2 })).toBe(2);
    expect(workersFromEnv({ testClock: "", value: "", databaseUrl: PG, cores: 8 })).toBe(8);
    expect(workersFromEnv({ testClock: "", value: "auto", databaseUrl: PG, cores: 3 })).toBe(3);
    expect(workersFromEnv({ testClock: "", value: undefined, databaseUrl: undefined, cores: 8 })).toBe(1);
    expect(workersFromEnv({ testClock: "", value: "auto", databaseUrl: "", cores: 8 })).toBe(1);
  });

  it("takes a whole number, also above the core count", () => {
    expect(workersFromEnv({ testClock: "", value: "1", databaseUrl: PG, cores: 2 })).toBe(1);
    expect(workersFromEnv({ testClock: "", value: " 4 ", databaseUrl: PG, cores: 2 })).toBe(4);
    expect(workersFromEnv({ testClock: "", value: "1", databaseUrl: undefined, cores: 2 })).toBe(1);
  });

  it("refuses anything else with the reason", () => {
    for (const bad of ["0", "-1", "1.5", "two", "2x", "1e2", "257"]) {
      expect(() => workersFromEnv({ testClock: "", value: bad, databaseUrl: PG, cores: 2 }), bad).toThrow(`EASEL_WORKERS must be a whole number from 1 to 256, or "auto" (one per core on PostgreSQL), got "${bad}"`);
    }
  });

  it("refuses more than one worker on the embedded database", () => {
    expect(() => workersFromEnv({ testClock: "", value: "2", databaseUrl: undefined, cores: 2 })).toThrow("EASEL_WORKERS=2 needs PostgreSQL (DATABASE_URL)");
  });

  it("runs one worker under the test clock, which moves one process's clock only", () => {
    expect(workersFromEnv({ value: undefined, databaseUrl: PG, cores: 4, testClock: "1" })).toBe(1);
    expect(workersFromEnv({ value: "1", databaseUrl: PG, cores: 4, testClock: "1" })).toBe(1);
    expect(() => workersFromEnv({ value: "2", databaseUrl: PG, cores: 4, testClock: "1" })).toThrow("EASEL_WORKERS=2 cannot run with EASEL_TEST_CLOCK");
    expect(workersFromEnv({ value: undefined, databaseUrl: PG, cores: 4, testClock: "" })).toBe(4);
  });
});
