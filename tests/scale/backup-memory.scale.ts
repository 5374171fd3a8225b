import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { layout } from "../../lib/objectstore/disk/layout";
import { createBucket, type ObjectRecord } from "../../lib/objectstore/disk/objects";
import { easel, startHarness, stopHarness, type Harness } from "../backup/helpers";

/**
 * A backup streams: the server that makes it (the data dir's owner, here tests/backup/harness.ts,
 * which opens the dir as `npm start` does and answers the control channel with the same code)
 * keeps its memory flat while it archives a data dir many times larger than the memory it may
 * use. ~3.5 GiB of objects, single-file and multipart, as sparse files (every byte is still read
 * and archived: the archive's size proves it). Needs no build and no PostgreSQL.
 */
const MiB = 1024 * 1024;
const SINGLE = { count: 48, size: 64 * MiB };
const MULTIPART = { count: 8, parts: 8, partSize: 8 * MiB };
const root = fs.mkdtempSync(path.join(os.tmpdir(), "easel-backup-rss-"));
const dataDir = path.join(root, "data");
let owner: Harness | null = null;
afterAll(async () => {
  if (owner) await stopHarness(owner);
  fs.rmSync(root, { recursive: true, force: true });
});

function zeroMd5(size: number): string {
  const hash = crypto.createHash("md5");
  const block = Buffer.alloc(MiB);
  for (let done = 0; done < size; done += MiB) hash.update(block.subarray(0, Math.min(MiB, size - done)));
  return hash.digest("hex");
}

/** Objects as the embedded store files them (record = commit point, data files it names), bytes sparse. */
async function fillStore(): Promise<number> {
  const lay = layout(path.join(dataDir, "objects"));
  await createBucket(lay, "easel", new Date());
  let total = 0;
  const write = (key: string, sizes: number[], md5: string) => {
    const dir = lay.objectDir("easel", key);
    fs.mkdirSync(dir, { recursive: true });
    const stem = `${crypto.createHash("sha256").update(key).digest("hex")}.${crypto.randomBytes(12).toString("hex")}`;
    const segments = sizes.map((size, i) => {
      const file = sizes.length === 1 ? `${stem}.data` : `${stem}.${i + 1}.data`;
      const fd = fs.openSync(path.join(dir, file), "w");
      fs.ftruncateSync(fd, size);
      fs.closeSync(fd);
      return { file, size };
    });
    const size = sizes.reduce((a, b) => a + b, 0);
    const record: ObjectRecord = { key, size, md5, etag: md5, contentType: "video/mp4", lastModified: new Date().toISOString(), segments, headers: {}, userMetadata: {} };
    fs.writeFileSync(lay.objectRecord("easel", key), JSON.stringify(record));
    total += size;
  };
  const singleMd5 = zeroMd5(SINGLE.size);
  for (let i = 0; i < SINGLE.count; i++) write(`ws/1/originals/big-${i}`, [SINGLE.size], singleMd5);
  const multiMd5 = zeroMd5(MULTIPART.parts * MULTIPART.partSize);
  for (let i = 0; i < MULTIPART.count; i++) write(`ws/1/originals/multi-${i}`, Array(MULTIPART.parts).fill(MULTIPART.partSize), multiMd5);
  return total;
}

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

it("a backup of a multi-GiB data dir keeps the owner's memory growth under 100 MB", async () => {
  // The database first (the owner creates it), then the objects beside it.
  const first = startHarness(dataDir, { HARNESS_MODE: "idle" });
  await first.waitFor("harness:ready");
  await stopHarness(first);
  const objectBytes = await fillStore();
  expect(objectBytes).toBeGreaterThan(3 * 1024 * MiB);

  owner = startHarness(dataDir, { HARNESS_MODE: "idle" });
  const pid = Number(await owner.waitFor("harness:ready"));
  // Past the startup collection (a second after open): a baseline at rest.
  await new Promise((r) => setTimeout(r, 3000));
  let baseline = 0;
  for (let i = 0; i < 10; i++) {
    baseline = Math.max(baseline, rssBytes(pid));
    await new Promise((r) => setTimeout(r, 100));
  }
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);
  const started = performance.now();
  const archive = path.join(root, "big.tar");
  const backup = await easel(dataDir, ["backup", archive]).finally(() => clearInterval(sampler));
  const seconds = (performance.now() - started) / 1000;
  expect(backup.code, backup.stderr).toBe(0);
  expect(backup.last).toMatch(new RegExp(`^backup: \\S+ \\d+ bytes, 0 assets, 0 versions, ${SINGLE.count + MULTIPART.count} objects$`));
  const archived = fs.statSync(archive).size;
  expect(archived).toBeGreaterThan(objectBytes);
  const growth = peak - baseline;
  console.log(
    `backup of ${(objectBytes / 1024 / MiB).toFixed(2)} GiB of objects: ${seconds.toFixed(1)} s (${(archived / MiB / seconds).toFixed(0)} MiB/s); ` +
      `owner RSS ${(baseline / MiB).toFixed(0)} MiB at rest, peak ${(peak / MiB).toFixed(0)} MiB, growth ${(growth / MiB).toFixed(1)} MiB; ${backup.stdout.split("\n")[0]}; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );
  expect(growth).toBeLessThan(100 * 1000 * 1000);
  fs.rmSync(archive);
}, 300_000);
