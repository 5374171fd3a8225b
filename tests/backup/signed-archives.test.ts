import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import tar from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArchiveDigest } from "../../lib/backup/archive-digest";
import { writeArchive } from "../../lib/backup/archive-output";
import { signedTrailerText, UNSIGNED_FORMAT_VERSION } from "../../lib/backup/format";
import { RestoreError, restoreArchive, type RestoreTrust } from "../../lib/backup/restore-archive";
import { runBackup } from "../../lib/backup/run-backup";
import { BACKUP_KEY_FILE, parseBackupKey, readBackupKey, signTrailer, type BackupKey } from "../../lib/backup/signing-key";
import { openDb, type DbHandle } from "../../lib/db/client";
import { assets, assetVersions } from "../../lib/db/schema";
import { layout } from "../../lib/objectstore/disk/layout";
import { commitObject, createBucket, openObject } from "../../lib/objectstore/disk/objects";
import { newWorkspace } from "../helpers/factories";
import { easel } from "./helpers";

/**
 * A restore takes only an archive it can vouch for (docs/operations.md, "Restore checks"): signed
 * with the operator's backup key, its entries those its trailer's digest covers, and its objects
 * the ones its database was written for. A tampered archive (an object's bytes and its record's md5
 * replaced, same size), one made by another instance, and an unsigned one without --without-key
 * are refused with nothing written; a good archive and an old unsigned one (with --without-key)
 * restore.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "easel-signed-"));
const dataDir = path.join(root, "data");
let handle: DbHandle;
let key: BackupKey;
let good: string;
const originals = new Map<string, Buffer>();

const md5 = (b: Buffer) => crypto.createHash("md5").update(b).digest("hex");

beforeAll(async () => {
  handle = await openDb({ dataDir, role: "server" });
  const lay = layout(path.join(dataDir, "objects"));
  await createBucket(lay, "easel", new Date());
  const ws = await newWorkspace(handle.db);
  const now = new Date();
  for (const [i, bytes] of [crypto.randomBytes(40_000), crypto.randomBytes(3_000), Buffer.from("an earlier version's bytes")].entries()) {
    const key = `ws/${ws.id}/originals/${i}`;
    fs.mkdirSync(lay.tmpDir, { recursive: true });
    const tmp = lay.tmpFile();
    fs.writeFileSync(tmp, bytes);
    await commitObject(lay, "easel", key, [{ path: tmp, size: bytes.length }], { size: bytes.length, md5: md5(bytes), etag: md5(bytes), contentType: "application/octet-stream", headers: {}, userMetadata: {} }, now);
    originals.set(key, bytes);
  }
  const [k0, k1, k2] = originals.keys();
  const row = (storageKey: string, title: string) => ({ workspaceId: ws.id, token: crypto.randomBytes(8).toString("hex"), title, mediaType: "application/octet-stream", size: originals.get(storageKey)!.length, md5: md5(originals.get(storageKey)!), storageKey, createdAt: now, updatedAt: now });
  const [first] = await handle.db.insert(assets).values(row(k0, "first")).returning();
  await handle.db.insert(assets).values(row(k1, "second"));
  await handle.db.insert(assetVersions).values({ assetId: first.id, versionNumber: 1, title: "first", mediaType: "application/octet-stream", size: originals.get(k2)!.length, md5: md5(originals.get(k2)!), storageKey: k2, source: "UPLOAD", createdAt: now } as typeof assetVersions.$inferInsert);
  good = await backUp("good.tar");
  key = await readBackupKey(path.join(dataDir, BACKUP_KEY_FILE));
}, 120_000);

afterAll(async () => {
  await handle?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function backUp(name: string): Promise<string> {
  const pg = (handle.db as unknown as { $client: PGlite }).$client;
  const backup = await runBackup(pg, dataDir);
  const file = path.join(root, name);
  await writeArchive(backup.stream, file);
  await backup.summary;
  return file;
}

type Entry = { header: tar.Header; body: Buffer };

async function readEntries(file: string): Promise<Entry[]> {
  const extract = tar.extract();
  const entries: Entry[] = [];
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      entries.push({ header: entry.header, body: Buffer.concat(chunks) });
    }
  })();
  extract.end(fs.readFileSync(file));
  await reading;
  return entries;
}

async function writeEntries(name: string, entries: Entry[]): Promise<string> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collecting = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const { header, body } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null) => (err ? reject(err) : resolve());
      if (header.type === "directory") pack.entry({ ...header, size: 0 }, done);
      else pack.entry({ ...header, size: body.length }, body, done);
    });
  }
  pack.finalize();
  await collecting;
  const file = path.join(root, name);
  fs.writeFileSync(file, Buffer.concat(chunks));
  return file;
}

const json = (e: Entry) => JSON.parse(e.body.toString("utf8")) as Record<string, unknown>;
const withJson = (e: Entry, value: unknown): Entry => ({ header: e.header, body: Buffer.from(JSON.stringify(value)) });

/** The archive with one original's bytes replaced by others of the same size, and its record's md5 to match. */
async function tampered(): Promise<Entry[]> {
  const entries = await readEntries(good);
  const recordAt = entries.findIndex((e) => e.header.name.endsWith(".json") && json(e).key === [...originals.keys()][0]);
  const record = json(entries[recordAt]);
  const forged = crypto.randomBytes(Number(record.size));
  entries[recordAt] = withJson(entries[recordAt], { ...record, md5: md5(forged), etag: md5(forged) });
  entries[recordAt + 1] = { header: entries[recordAt + 1].header, body: forged };
  return entries;
}

/** A forger's best: the digest recomputed over the changed entries, the trailer signed with `signer` (null: left unsigned). */
function resealed(entries: Entry[], signer: BackupKey | null): Entry[] {
  const digest = new ArchiveDigest();
  for (const e of entries.slice(0, -1)) {
    digest.entry(e.header.name, e.header.type ?? "file", e.header.type === "directory" ? 0 : e.body.length);
    digest.update(e.body);
  }
  const trailer = { ...json(entries.at(-1)!), digest: digest.hex() } as Parameters<typeof signedTrailerText>[0];
  trailer.signature = signer ? signTrailer(signer, signedTrailerText(trailer)) : undefined;
  const manifest = signer ? withJson(entries[0], { ...json(entries[0]), key_id: signer.id }) : entries[0];
  return [manifest, ...entries.slice(1, -1), withJson(entries.at(-1)!, trailer)];
}

/** Made before backups were signed: version 1, no key id, digest or signature. */
function oldFormat(entries: Entry[]): Entry[] {
  const { key_id: _id, ...manifest } = json(entries[0]);
  const { digest: _d, signature: _s, ...trailer } = json(entries.at(-1)!);
  return [withJson(entries[0], { ...manifest, version: UNSIGNED_FORMAT_VERSION }), ...entries.slice(1, -1), withJson(entries.at(-1)!, trailer)];
}

/** A restore of `file` that must be refused: nothing is left beside or at the target. */
async function refused(file: string, trust: RestoreTrust, message: RegExp) {
  const parent = fs.mkdtempSync(path.join(root, "target-"));
  const target = path.join(parent, "data");
  const attempt = restoreArchive(file, target, undefined, trust);
  await expect(attempt).rejects.toThrow(message);
  await expect(attempt).rejects.toBeInstanceOf(RestoreError);
  expect(fs.readdirSync(parent), "no restored or half-restored dir").toEqual([]);
}

async function restoredBytes(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const k of originals.keys()) {
    const opened = await openObject(layout(path.join(dir, "objects")), "easel", k);
    if (opened) out.set(k, Buffer.concat(await opened.stream.toArray()));
  }
  return out;
}

describe("restore checks", () => {
  it("restores a good archive, signed with the data dir's key, and checks every original against the database", async () => {
    const target = path.join(root, "restored-good");
    const result = await restoreArchive(good, target, undefined, { key });
    expect(result).toMatchObject({ signed: true, database: { checked: 3, missing: [] } });
    expect(await restoredBytes(target)).toEqual(originals);
    // The restored instance keeps the key: its next backups verify with the same kept copy.
    expect((await readBackupKey(path.join(target, BACKUP_KEY_FILE))).id).toBe(key.id);
    expect(fs.statSync(path.join(target, BACKUP_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it("refuses an archive whose object bytes and record md5 were replaced, whatever the forger redoes, writing nothing", async () => {
    const entries = await tampered();
    // As edited: the trailer's digest no longer covers the entries.
    const plain = await writeEntries("tampered.tar", entries);
    await refused(plain, { key }, /their digest differs/);
    await refused(plain, { key: null, withoutKey: true }, /their digest differs/);
    // Digest recomputed, the key's signature left as it was: the signature fails.
    const redigested = await writeEntries("tampered-redigested.tar", resealed(entries, null).map((e, i, all) => (i === all.length - 1 ? withJson(e, { ...json(e), signature: json(entries.at(-1)!).signature }) : e)));
    await refused(redigested, { key }, /signature does not hold/);
    // Without the key only the database stands in the way: it recorded the original's md5.
    await refused(redigested, { key: null, withoutKey: true }, /not the ones its database was written for: ws\/\d+\/originals\/0/);
    // Signed anew with the forger's own key: another key than the operator's.
    const forger = parseBackupKey(crypto.randomBytes(32).toString("base64url"), "forger");
    await refused(await writeEntries("tampered-resigned.tar", resealed(entries, forger)), { key }, /signed with another key/);
    // Rewritten as an old, unsigned archive: refused without --without-key, and by the database with it.
    const old = await writeEntries("tampered-old.tar", oldFormat(entries));
    await refused(old, { key }, /carries no signature/);
    await refused(old, { key: null, withoutKey: true }, /not the ones its database was written for/);
  });

  it("refuses an archive of another instance (another key) and a signed archive with no key given", async () => {
    const ours = fs.readFileSync(path.join(dataDir, BACKUP_KEY_FILE));
    fs.writeFileSync(path.join(dataDir, BACKUP_KEY_FILE), `${crypto.randomBytes(32).toString("base64url")}\n`);
    let foreign: string;
    try {
      foreign = await backUp("foreign.tar");
    } finally {
      fs.writeFileSync(path.join(dataDir, BACKUP_KEY_FILE), ours);
    }
    await refused(foreign, { key }, /signed with another key .* made by another Easel instance/);
    await refused(good, { key: null }, /no backup key/);
  });

  it("restores an old unsigned archive with --without-key only, its objects checked against its database", async () => {
    const old = await writeEntries("old.tar", oldFormat(await readEntries(good)));
    await refused(old, { key }, /made by an earlier Easel and carries no signature: restore it with --without-key/);
    const target = path.join(root, "restored-old");
    const result = await restoreArchive(old, target, undefined, { key: null, withoutKey: true });
    expect(result).toMatchObject({ signed: false, database: { checked: 3, missing: [] } });
    expect(await restoredBytes(target)).toEqual(originals);
    expect(fs.existsSync(path.join(target, BACKUP_KEY_FILE))).toBe(false);
  });

  it("through the CLI: --key-file restores; a tampered archive exits 1 and leaves no dir", async () => {
    const keyFile = path.join(root, "kept-backup.key");
    fs.copyFileSync(path.join(dataDir, BACKUP_KEY_FILE), keyFile);
    const elsewhere = path.join(root, "new-machine");
    const ok = await easel(elsewhere, ["restore", good, "--data-dir", path.join(root, "cli-good"), "--key-file", keyFile]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`signature checked with the backup key ${key.id}; 3 originals match the database's md5`);
    const forged = await writeEntries("cli-tampered.tar", resealed(await tampered(), null));
    const bad = await easel(elsewhere, ["restore", forged, "--data-dir", path.join(root, "cli-bad"), "--key-file", keyFile]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/signature does not hold/);
    expect(fs.existsSync(path.join(root, "cli-bad"))).toBe(false);
    const noKey = await easel(elsewhere, ["restore", good, "--data-dir", path.join(root, "cli-nokey")]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/no backup key .*--key-file/);
  }, 120_000);
});
