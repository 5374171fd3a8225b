import { describe, expect, it } from "vitest";
import { signStorageId, verifyStorageId } from "./signed-storage-id";

const secret = "test-secret";
const now = new Date("2026-01-01T00:00:00Z");
const claims = { workspaceId: 7, handle: "abc123", expiresAt: new Date(now.getTime() + 24 * 3600e3) };

describe("signed_storage_id", () => {
  const id = signStorageId(secret, claims);

  it("round-trips", () => {
    expect(verifyStorageId(secret, id, 7, now)).toEqual({ ok: true, claims });
  });

  it("refuses every single-character change", () => {
    for (let i = 0; i < id.length; i++) {
      const c = id[i];
      const swapped = id.slice(0, i) + (c === "A" ? "B" : "A") + id.slice(i + 1);
      if (swapped === id) continue;
      expect(verifyStorageId(secret, swapped, 7, now).ok, `position ${i}`).toBe(false);
    }
  });

  it("refuses another workspace, expiry, another secret and garbage", () => {
    expect(verifyStorageId(secret, id, 8, now)).toEqual({ ok: false, reason: "workspace" });
    expect(verifyStorageId(secret, id, 7, new Date(claims.expiresAt.getTime() + 1))).toEqual({ ok: false, reason: "expired" });
    expect(verifyStorageId("other", id, 7, now)).toEqual({ ok: false, reason: "signature" });
    for (const junk of ["", "not-a-signed-id", "a.b.c", `${id}x`, id.replace(".", "")]) expect(verifyStorageId(secret, junk, 7, now).ok).toBe(false);
  });
});
