import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validationError } from "./parse";

describe("validationError", () => {
  const schema = z.object({ asset: z.object({ fields: z.record(z.string(), z.string()) }) });

  it("maps a field to its own code, and every other field to validation_failed", () => {
    const own = schema.safeParse({ asset: { fields: { version_number: {} } } });
    expect(validationError(own.error!, { version_number: "invalid_version_number" }).code).toBe("invalid_version_number");
    const other = schema.safeParse({ asset: { fields: { title: {} } } });
    expect(validationError(other.error!, { version_number: "invalid_version_number" }).code).toBe("validation_failed");
  });

  it.each(["constructor", "toString", "hasOwnProperty"])("a field named %s is validation_failed, not a member of Object.prototype", (name) => {
    const result = schema.safeParse(JSON.parse(`{"asset":{"fields":{"${name}":{}}}}`));
    expect(result.success).toBe(false);
    const err = validationError(result.error!, { version_number: "invalid_version_number" });
    expect(err.code).toBe("validation_failed");
    expect(err.extensions).toEqual({ field: expect.stringContaining("asset.fields") });
  });
});
