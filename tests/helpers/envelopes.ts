import { expect } from "vitest";
import type { Answer } from "./call-route";

/** Asserts the contract's error envelope with a status and code; returns the error's extensions. */
export function expectError(res: Answer, status: number, code: string): Record<string, unknown> {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { errors: [{ extensions: { code } }] } });
  expect(typeof res.body.errors[0].message).toBe("string");
  expect(res.text).not.toMatch(/\bat [\w.<>]+ \(/); // never a stack trace
  return res.body.errors[0].extensions;
}

export function expectValidation(res: Answer, field: string) {
  const ext = expectError(res, 422, "validation_failed");
  expect(String(ext.field).split(/[^A-Za-z0-9_]+/)).toContain(field);
}

export function expectRateHeaders(res: Answer) {
  for (const h of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) expect(res.headers.get(h)).toMatch(/^\d+$/);
}
