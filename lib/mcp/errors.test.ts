import { describe, expect, it } from "vitest";
import { toolError } from "./errors";

describe("toolError", () => {
  it("names a lost database as database_unavailable, not internal", () => {
    const lost = new Error("Failed query: select 1", { cause: Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }) });
    const result = toolError(lost, "get_asset");
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe("database_unavailable");
    expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^database_unavailable: /) });
    expect(JSON.stringify(result)).not.toContain("select 1");
  });
});
