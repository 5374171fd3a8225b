import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { md5Hex, tempDir } from "../testing/fixtures";
import { releaseStaleHolds } from "./holds";
import { layout, type Layout } from "./layout";
import { commitObject, createBucket, deleteObject, headObject, openObject, type ObjectRecord } from "./objects";
import { holdDeletions } from "./pins";

async function put(lay: Layout, key: string, text: string): Promise<ObjectRecord> {
  fs.mkdirSync(lay.tmpDir, { recursive: true });
  const file = lay.tmpFile();
  fs.writeFileSync(file, text);
  const bytes = Buffer.from(text);
  return commitObject(lay, "b1", key, [{ path: file, size: bytes.length }], { size: bytes.length, md5: md5Hex(bytes), etag: md5Hex(bytes), contentType: "text/plain", headers: {}, userMetadata: {} }, new Date());
}

const dataFile = (lay: Layout, record: ObjectRecord) => path.join(lay.objectDir("b1", record.key), record.segments[0].file);

async function store(name: string) {
  const lay = layout(path.join(tempDir(name), "objects"));
  await createBucket(lay, "b1", new Date());
  return lay;
}

describe("deletion holds", () => {
  it("a delete under a hold is visible at once; its file stays until the hold ends, and the hold keeps its record", async () => {
    const lay = await store("hold-delete");
    const record = await put(lay, "a/one", "first");
    const { hold, release } = holdDeletions(lay.root);
    expect(await deleteObject(lay, "b1", "a/one")).toBe(true);
    expect(await headObject(lay, "b1", "a/one")).toBeNull();
    expect(fs.readFileSync(dataFile(lay, record), "utf8")).toBe("first");
    const rel = path.relative(lay.root, lay.objectRecord("b1", "a/one"));
    expect(hold.deletedRecord(rel)).toEqual(record);
    expect(hold.deletedIn(path.dirname(rel))).toEqual([path.basename(rel)]);
    // The journal line is appended behind the delete (holds.ts chains it): wait for it, bounded.
    await vi.waitFor(() => expect(fs.readdirSync(path.join(lay.root, ".holds"))).toHaveLength(1), { timeout: 5_000 });
    await release();
    expect(fs.existsSync(dataFile(lay, record))).toBe(false);
    expect(fs.readdirSync(path.join(lay.root, ".holds"))).toEqual([]);
  });

  it("an overwrite under a hold keeps the replaced bytes until the hold ends; reads see the new object", async () => {
    const lay = await store("hold-overwrite");
    const old = await put(lay, "k", "old bytes");
    const { release } = holdDeletions(lay.root);
    await put(lay, "k", "new bytes");
    const opened = await openObject(lay, "b1", "k");
    expect(Buffer.concat(await opened!.stream.toArray()).toString()).toBe("new bytes");
    expect(fs.existsSync(dataFile(lay, old))).toBe(true);
    await release();
    expect(fs.existsSync(dataFile(lay, old))).toBe(false);
  });

  it("deletions wait for the last of two holds, and for a reader still streaming the file", async () => {
    const lay = await store("hold-two");
    const record = await put(lay, "k", "x".repeat(5 * 1024 * 1024));
    const first = holdDeletions(lay.root);
    const second = holdDeletions(lay.root);
    const reading = await openObject(lay, "b1", "k");
    await deleteObject(lay, "b1", "k");
    await first.release();
    expect(fs.existsSync(dataFile(lay, record))).toBe(true);
    await second.release();
    // Still pinned by the reader: removed when it lets go.
    expect(fs.existsSync(dataFile(lay, record))).toBe(true);
    expect(Buffer.concat(await reading!.stream.toArray()).length).toBe(5 * 1024 * 1024);
    expect(fs.existsSync(dataFile(lay, record))).toBe(false);
  });

  it("a hold on one store defers nothing in another", async () => {
    const held = await store("hold-mine");
    const other = await store("hold-other");
    const record = await put(other, "k", "bytes");
    const { release } = holdDeletions(held.root);
    await deleteObject(other, "b1", "k");
    expect(fs.existsSync(dataFile(other, record))).toBe(false);
    await release();
  });

  it("files deferred by a process that died holding are removed by the next owner; the journal names nothing else", async () => {
    const lay = await store("hold-stale");
    const kept = await put(lay, "kept", "kept");
    const orphan = await put(lay, "orphan", "orphan");
    // The orphan's record is gone (deleted under the hold), its file was listed and then the process died.
    fs.rmSync(lay.objectRecord("b1", "orphan"));
    const outside = path.join(path.dirname(lay.root), "outside.data");
    fs.writeFileSync(outside, "not the store's");
    fs.mkdirSync(path.join(lay.root, ".holds"), { recursive: true });
    const lines = [path.relative(lay.root, dataFile(lay, orphan)), "../outside.data", "b1/../../outside.data", "/etc/hostname", ""];
    fs.writeFileSync(path.join(lay.root, ".holds", "deadbeef.list"), lines.join("\n"));
    expect(await releaseStaleHolds(lay.root)).toBe(1);
    expect(fs.existsSync(dataFile(lay, orphan))).toBe(false);
    expect(fs.existsSync(dataFile(lay, kept))).toBe(true);
    expect(fs.existsSync(outside)).toBe(true);
    expect(fs.readdirSync(path.join(lay.root, ".holds"))).toEqual([]);
  });
});
