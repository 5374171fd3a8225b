import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { layout } from "./layout";
import { sweep } from "./sweep";

const DAY = 24 * 3600 * 1000;

function touch(entry: string, ageMs: number, dir = false) {
  if (dir) fs.mkdirSync(entry, { recursive: true });
  else {
    fs.mkdirSync(path.dirname(entry), { recursive: true });
    fs.writeFileSync(entry, "x");
  }
  const at = new Date(Date.now() - ageMs);
  fs.utimesSync(entry, at, at);
}

describe("sweep", () => {
  it("removes day-old temp files and week-old uploads and sessions, and keeps the rest", async () => {
    const lay = layout(tempDir("sweep"));
    touch(path.join(lay.tmpDir, "stale"), 2 * DAY);
    touch(path.join(lay.tmpDir, "receiving"), 60_000);
    touch(lay.uploadDir("oldUploadAAAAAAAAAAAAAAA"), 8 * DAY, true);
    touch(lay.uploadDir("newUploadAAAAAAAAAAAAAAA"), 2 * DAY, true);
    touch(lay.sessionDir("oldSessionAAAAAAAAAAAAAA"), 8 * DAY, true);
    touch(lay.sessionDir("newSessionAAAAAAAAAAAAAA"), 6 * DAY, true);
    touch(path.join(lay.bucketDir("easel"), "ab", "record.json"), 30 * DAY); // objects are never swept

    const { removed } = await sweep(lay, Date.now());
    expect(removed.map((p) => path.relative(lay.root, p)).sort()).toEqual([".sessions/oldSessionAAAAAAAAAAAAAA", ".tmp/stale", ".uploads/oldUploadAAAAAAAAAAAAAAA"]);
    expect(fs.existsSync(path.join(lay.tmpDir, "receiving"))).toBe(true);
    expect(fs.existsSync(lay.uploadDir("newUploadAAAAAAAAAAAAAAA"))).toBe(true);
    expect(fs.existsSync(lay.sessionDir("newSessionAAAAAAAAAAAAAA"))).toBe(true);
    expect(fs.existsSync(path.join(lay.bucketDir("easel"), "ab", "record.json"))).toBe(true);
  });

  it("does nothing on a store that has never been written to", async () => {
    expect(await sweep(layout(path.join(tempDir("sweep-empty"), "objects")), Date.now())).toEqual({ removed: [] });
  });
});
