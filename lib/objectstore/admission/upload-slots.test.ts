import { describe, expect, it } from "vitest";
import { createUploadSlots, workspaceOfKey, type Admission, type UploadSlot } from "./upload-slots";

const slotOf = (admission: Admission): UploadSlot => {
  if (!admission.admitted) throw new Error(`refused: ${admission.reason}`);
  return admission.slot;
};

describe("upload slots", () => {
  it("admits 4 bodies per URL, refuses the 5th, and admits again once one is released", () => {
    const slots = createUploadSlots({ perUrl: 4, perWorkspace: 100, openFilesTight: () => false });
    const held = Array.from({ length: 4 }, () => slotOf(slots.admit("s3:b/ws/1/originals/a", "1")));
    expect(slots.admit("s3:b/ws/1/originals/a", "1")).toEqual({ admitted: false, reason: "upload_url" });
    // Another URL of the same workspace is not affected.
    expect(slots.admit("s3:b/ws/1/originals/b", "1").admitted).toBe(true);
    held[0].release();
    expect(slots.admit("s3:b/ws/1/originals/a", "1").admitted).toBe(true);
  });

  it("a slot released twice (the operation ended, then the request closed) frees one place, not two", () => {
    const slots = createUploadSlots({ perUrl: 2, perWorkspace: 100, openFilesTight: () => false });
    const a = slotOf(slots.admit("u", "1"));
    slotOf(slots.admit("u", "1"));
    a.release();
    a.release();
    expect(slots.inUse("url", "u")).toBe(1);
    expect(slots.inUse("workspace", "1")).toBe(1);
    slotOf(slots.admit("u", "1"));
    expect(slots.admit("u", "1")).toEqual({ admitted: false, reason: "upload_url" });
  });

  it("bounds a workspace across its URLs, and leaves other workspaces and keys outside any workspace alone", () => {
    const slots = createUploadSlots({ perUrl: 4, perWorkspace: 3, openFilesTight: () => false });
    const held = ["a", "b", "c"].map((k) => slotOf(slots.admit(`u-${k}`, "7")));
    expect(slots.admit("u-d", "7")).toEqual({ admitted: false, reason: "workspace" });
    expect(slots.admit("u-e", "8").admitted).toBe(true);
    expect(slots.admit("u-f", null).admitted).toBe(true);
    held.forEach((s) => s.release());
    expect(slots.inUse("workspace", "7")).toBe(0);
    expect(slots.admit("u-d", "7").admitted).toBe(true);
  });

  it("refuses every new body while open files are tight, and a refusal takes no slot", () => {
    let tight = true;
    const slots = createUploadSlots({ perUrl: 4, perWorkspace: 4, openFilesTight: () => tight });
    for (let i = 0; i < 10; i++) expect(slots.admit("u", "1")).toEqual({ admitted: false, reason: "open_files" });
    expect(slots.inUse("url", "u")).toBe(0);
    tight = false;
    expect(slots.admit("u", "1").admitted).toBe(true);
  });

  it("finds the workspace of Easel's keys only", () => {
    expect(workspaceOfKey("ws/12/originals/abc")).toBe("12");
    expect(workspaceOfKey("ws/12/originals/abc.thumb-256.jpg")).toBe("12");
    expect(workspaceOfKey("backups/ws/12/x")).toBeNull();
    expect(workspaceOfKey("ws/x/originals")).toBeNull();
  });
});
