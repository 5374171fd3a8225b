import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./unavailable";

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it("recognises lost or refused connections and a server shutting down, also wrapped in a cause", () => {
    for (const code of ["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNREFUSED", "ECONNRESET", "57P01", "57P03", "08006"]) {
      expect(isDatabaseUnavailable(coded(code)), code).toBe(true);
    }
    expect(isDatabaseUnavailable(new Error("Failed query: select 1", { cause: coded("57P01") }))).toBe(true);
  });

  it("leaves refused statements and bugs alone (they stay 4xx/500)", () => {
    for (const code of ["23505", "40001", "42P01", "22021", "ENOENT"]) expect(isDatabaseUnavailable(coded(code)), code).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("x is undefined"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
