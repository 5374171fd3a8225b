import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import { storageVerify } from "../../lib/cli/storage-verify";
import type { Db } from "../../lib/db";
import { openDb, type DbHandle } from "../../lib/db/client";
import { assets, type Workspace } from "../../lib/db/schema";
import { setDeps, type Deps } from "../../lib/deps";
import { encodeDir, masterKeyOf } from "../../lib/encode/keys";
import { masterPlaylist } from "../../lib/encode/playlists";
import { env, resetEnvCache } from "../../lib/env";
import { recordingJobSender } from "../../lib/jobs/send";
import { captureLogs } from "../../lib/log/capture";
import { mediaLinker } from "../../lib/media/links";
import { processAsset } from "../../lib/media/process-asset";
import { embeddedLayout, serveGcs, serveS3 } from "../../lib/objectstore";
import { inspectObject } from "../../lib/objectstore/disk/objects";
import { EMBEDDED_BUCKET } from "../../lib/objectstore/identity";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { listen, type RunningServer } from "../../lib/objectstore/testing/node-server";
import { getSecret } from "../../lib/secrets";
import { storageFor } from "../../lib/storage";
import { embeddedS3Settings, makeS3Client } from "../../lib/storage/s3/config";
import { verifyStorage } from "../../lib/storage/verify/verify-storage";
import { testDb } from "../helpers/db";
import { testClock } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { uploadToStore, writeVersionToStore } from "../helpers/store-uploads";
import { revert } from "../helpers/versions";

// Contract §10: a stored file that is gone or truncated is missing everywhere (the store's HEAD,
// the drivers' head, media links, revert, processing), and `storage verify` names exactly the
// files that are missing or corrupt. Assets are uploaded through the API into the embedded store
// (both protocols) on a loopback server; their files are then damaged on disk.
//
// The CLI runs as its own process against this file's database: on PGlite this process owns a
// data dir (as the server would) and the CLI goes through its socket; on PostgreSQL it connects
// to TEST_DATABASE_URL. Either way it reads the same embedded store (EASEL_DATA_DIR/objects).

const target = inject("testDatabase");
const time = testClock();
let handle: DbHandle | null = null;
let db: Db;
let deps: Deps;
let server: RunningServer;

type Kind = "s3" | "gcs";
type Team = { ws: Workspace; token: string; board: string };
const team = {} as Record<Kind, Team>;

async function answer(req: Request): Promise<Response> {
  const p = new URL(req.url).pathname;
  if (p.startsWith(`${S3_MOUNT_PATH}/`) || p === S3_MOUNT_PATH) return serveS3(req);
  if (p.startsWith(`${GCS_MOUNT_PATH}/`) || p === GCS_MOUNT_PATH) return serveGcs(req);
  if (p.startsWith("/media/")) return mediaRoute.GET(req, { params: Promise.resolve({ path: p.slice("/media/".length).split("/").map(decodeURIComponent) }) });
  return new Response("not here", { status: 404 });
}

/** Runs `npm run easel -- …` as its own process, as an operator would, against this file's database and store. */
function easel(...args: string[]): Promise<{ code: number | null; stdout: string[]; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, EASEL_DATA_DIR: env().dataDir };
  delete childEnv.DATABASE_URL;
  if (target.kind === "postgres") childEnv.DATABASE_URL = target.url;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { env: childEnv, encoding: "utf8", timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout: stdout.trim().split("\n").filter(Boolean), stderr });
    });
  });
}

/** verify, in this process, limited to one workspace: its problem lines (sorted) and totals. */
async function verify(ws: Workspace) {
  const lines: string[] = [];
  const totals = await verifyStorage(db, { workspace: ws.slug, report: (l) => lines.push(l) });
  return { lines: lines.sort(), totals };
}

async function png(seed: number): Promise<Buffer> {
  return sharp({ create: { width: 64 + seed, height: 48, channels: 3, background: { r: seed * 40, g: 90, b: 200 } } }).png().toBuffer();
}

const rowOf = async (assetToken: string) => (await db.select().from(assets).where(eq(assets.token, assetToken)))[0];
const storage = (kind: Kind) => storageFor(kind, { baseUrl: server.origin, db, clock: time.clock });
const processed = async (kind: Kind, assetToken: string) => expect((await processAsset(deps, storage(kind), (await rowOf(assetToken)).id)).status).toBe("processed");

/** The file holding a (single-part) object's bytes in the embedded store. */
async function dataFile(key: string): Promise<string> {
  const lay = embeddedLayout();
  const state = await inspectObject(lay, EMBEDDED_BUCKET, key);
  if (!state) throw new Error(`no record for ${key}`);
  return path.join(lay.objectDir(EMBEDDED_BUCKET, key), state.record.segments[0].file);
}

/** A published HLS stream for the asset (written as the encode writes one, without running ffmpeg): master, one rendition, init and two segments. */
async function publishStream(kind: Kind, assetToken: string): Promise<string[]> {
  const row = await rowOf(assetToken);
  const dir = encodeDir(row.storageKey, "01TESTRUN0000000000000000");
  const files: [string, Buffer][] = [
    [masterKeyOf(dir), Buffer.from(masterPlaylist([{ uri: "360p/index.m3u8", width: 640, height: 360, bandwidth: 800_000, averageBandwidth: 700_000, codecs: "avc1.64001e" }]))],
    [`${dir}/360p/index.m3u8`, Buffer.from('#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:4.0,\nseg_00000.m4s\n#EXTINF:2.5,\nseg_00001.m4s\n#EXT-X-ENDLIST\n')],
    [`${dir}/360p/init.mp4`, Buffer.alloc(900, 1)],
    [`${dir}/360p/seg_00000.m4s`, Buffer.alloc(40_000, 2)],
    [`${dir}/360p/seg_00001.m4s`, Buffer.alloc(25_000, 3)],
  ];
  for (const [key, body] of files) await storage(kind).write(key, body, "application/octet-stream");
  await db.update(assets).set({ streamKey: files[0][0], encodeStatus: "ready" }).where(eq(assets.id, row.id));
  return files.map(([key]) => key);
}

/** Every key the database gives an asset (originals and thumbnails of head and versions), once each. */
async function keysOf(assetToken: string): Promise<Set<string>> {
  const row = await rowOf(assetToken);
  const { assetVersions } = await import("../../lib/db/schema");
  const versions = await db.select().from(assetVersions).where(eq(assetVersions.assetId, row.id));
  return new Set([row, ...versions].flatMap((r) => [r.storageKey, ...r.thumbnails.map((t) => t.key)]));
}

/** What each workspace holds, filled in by the intact-store test and damaged by the next. */
const made = {} as Record<Kind, { versioned: { token: string; v1Key: string; headThumb: string }; plain: { token: string; key: string }; stream: string[]; expectedCount: number }>;

beforeAll(async () => {
  if (target.kind === "postgres") db = (await testDb()).db;
  else {
    // This process owns the embedded database in the per-file data dir, as `npm start` would.
    handle = await openDb({ dataDir: env().dataDir, role: "server" });
    db = handle.db;
  }
  deps = { db, clock: time.clock, jobs: recordingJobSender(), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock: time.clock }) };
  setDeps(deps);
  server = await listen(answer);
  vi.stubEnv("EASEL_PUBLIC_URL", server.origin);
  resetEnvCache();
  for (const kind of ["s3", "gcs"] as const) {
    const ws = await newWorkspace(db, { plan: "team", storage: kind });
    team[kind] = { ws, token: await newApiToken(db, ws), board: (await newBoard(db, ws)).token };
  }
}, 180_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvCache();
  setDeps(null);
  await server?.close();
  await handle?.close();
});

describe.each(["s3", "gcs"] as const)("storage verify on the embedded store (%s workspace)", (kind) => {
  it("an intact store: every original, thumbnail and stream file is checked, nothing is reported", async () => {
    const { ws, token, board } = team[kind];
    // A versioned asset: v1's bytes and thumbnails, then new bytes as the head (v2), processed too.
    const versioned = await uploadToStore(ws, token, await png(1), { collection_token: board });
    await processed(kind, versioned.token);
    await writeVersionToStore(ws, token, versioned.token, await png(2));
    await processed(kind, versioned.token);
    // An unprocessed asset (its display link is its original) and one with a published stream.
    const plain = await uploadToStore(ws, token, await png(3), { collection_token: board });
    const streamed = await uploadToStore(ws, token, await png(4), { collection_token: board });
    const stream = await publishStream(kind, streamed.token);

    const head = await rowOf(versioned.token);
    expect(head.nextVersionNumber).toBe(2);
    expect(head.thumbnails.length).toBeGreaterThan(0);
    const keys = [...(await keysOf(versioned.token)), ...(await keysOf(plain.token)), ...(await keysOf(streamed.token)), ...stream];
    made[kind] = {
      versioned: { token: versioned.token, v1Key: versioned.primary_storage_id, headThumb: head.thumbnails[0].key },
      plain: { token: plain.token, key: plain.primary_storage_id },
      stream,
      expectedCount: new Set(keys).size,
    };
    expect(made[kind].expectedCount).toBeGreaterThanOrEqual(2 * (1 + head.thumbnails.length) + 2 + stream.length);
    expect(await verify(ws)).toEqual({ lines: [], totals: expect.objectContaining({ checked: made[kind].expectedCount, missing: 0, corrupt: 0 }) });
  }, 120_000);

  it("a version's data file removed or truncated: the store's HEAD and the driver's head find nothing, media 404, revert 422 version_blob_missing, processing fails with storage_object_not_found; verify names exactly the damaged files", async () => {
    const { ws, token } = team[kind];
    const m = made[kind];
    const logs = captureLogs();
    try {
      // v1's original: removed on s3, truncated on gcs. The unprocessed asset's original: truncated on s3, removed on gcs.
      const [cut, gone] = kind === "s3" ? [m.plain.key, m.versioned.v1Key] : [m.versioned.v1Key, m.plain.key];
      fs.rmSync(await dataFile(gone));
      const cutFile = await dataFile(cut);
      fs.truncateSync(cutFile, 100);
      // A thumbnail changed in place (same size, other bytes) and a stream segment removed.
      const thumbFile = await dataFile(m.versioned.headThumb);
      const thumb = fs.readFileSync(thumbFile);
      thumb[thumb.length >> 1] ^= 0xff;
      fs.writeFileSync(thumbFile, thumb);
      const segment = m.stream.find((k) => k.endsWith("seg_00001.m4s"))!;
      fs.rmSync(await dataFile(segment));

      // The store and both drivers: no such object.
      for (const key of [cut, gone, segment]) expect(await storage(kind).head(key), key).toBeNull();
      if (kind === "s3") {
        const client = makeS3Client(await embeddedS3Settings(server.origin, db));
        await expect(client.send(new HeadObjectCommand({ Bucket: EMBEDDED_BUCKET, Key: m.versioned.v1Key }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
      }
      // Media links: the unprocessed asset's display (its original) and version 1's original.
      const link = mediaLinker(server.origin, await getSecret(db, "media_url_key"), time.clock());
      for (const url of [link(m.plain.token, "display"), link(m.versioned.token, "original", { version: 1 })]) {
        const res = await fetch(url);
        expect([url, res.status]).toEqual([url, 404]);
      }
      expect((await fetch(link(m.versioned.token, "original"))).status).toBe(200); // the head's own bytes are intact
      // Revert to version 1 and processing of the unprocessed asset.
      expectError(await revert(ws, token, m.versioned.token, { version_number: 1 }), 422, "version_blob_missing");
      await expect(processAsset(deps, storage(kind), (await rowOf(m.plain.token)).id)).rejects.toMatchObject({ code: "storage_object_not_found" });
      expect(logs.lines().some((l) => l.bucket === "easel" && l.key === gone && l.msg.includes("the object's bytes are gone"))).toBe(true);

      const { lines, totals } = await verify(ws);
      const streamToken = (await db.select({ token: assets.token }).from(assets).where(eq(assets.streamKey, m.stream[0])))[0].token;
      const owner = (key: string) => (key === m.plain.key ? m.plain.token : m.versioned.token);
      expect(lines.filter((l) => l.startsWith("missing "))).toEqual([`missing ${gone} (asset ${owner(gone)} v1)`, `missing ${segment} (asset ${streamToken} v1)`].sort());
      const corrupt = lines.filter((l) => l.startsWith("corrupt "));
      expect(corrupt).toHaveLength(2);
      expect(corrupt.find((l) => l.startsWith(`corrupt ${cut} `))).toMatch(new RegExp(`^corrupt \\S+ \\(asset ${owner(cut)} v1\\): data file \\S+ holds 100 bytes, its record says \\d+$`));
      expect(corrupt.find((l) => l.startsWith(`corrupt ${m.versioned.headThumb} `))).toMatch(new RegExp(`^corrupt \\S+ \\(asset ${m.versioned.token} v2\\): md5 [0-9a-f]{32}, recorded [0-9a-f]{32}$`));
      expect(lines).toHaveLength(4);
      expect(totals).toMatchObject({ checked: m.expectedCount, missing: 2, corrupt: 2 });
    } finally {
      logs.restore();
    }
  }, 120_000);
});

describe("npm run easel -- storage verify, as its own process", () => {
  it("exits 0 with the summary line on an intact workspace, 1 naming exactly the damaged files otherwise", async () => {
    const intact = await newWorkspace(db, { plan: "team", storage: "s3" });
    const intactToken = await newApiToken(db, intact);
    const a = await uploadToStore(intact, intactToken, await png(5), { collection_token: (await newBoard(db, intact)).token });
    const ok = await easel("storage", "verify", "--workspace", intact.slug);
    expect(ok).toMatchObject({ code: 0, stdout: ["verify: 1 objects checked, 0 missing, 0 corrupt"] });
    expect(ok.stderr).toBe(""); // no terminal: no progress line

    fs.rmSync(await dataFile(a.primary_storage_id));
    const bad = await easel("storage", "verify", "--workspace", intact.slug);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toEqual([`missing ${a.primary_storage_id} (asset ${a.token} v1)`, "verify: 1 objects checked, 1 missing, 0 corrupt"]);
    expect(bad.stderr).toMatch(/storage verify: 1 missing, 0 corrupt/);

    // Without --workspace: every workspace. (On PostgreSQL the database is shared with other test
    // files, whose assets are stored in their own folders, so only this file's own database is verified whole.)
    if (target.kind === "pglite") {
      const all = await easel("storage", "verify");
      expect(all.code).toBe(1);
      expect(all.stdout.at(-1)).toBe(`verify: ${made.s3.expectedCount + made.gcs.expectedCount + 1} objects checked, 5 missing, 4 corrupt`);
      expect(all.stdout).toHaveLength(10);
    }
  }, 240_000);

  it("on a terminal, progress goes to stderr on one line, cleared before each problem line and at the end", async () => {
    const ws = await newWorkspace(db, { plan: "team", storage: "gcs" });
    const t = await newApiToken(db, ws);
    const a = await uploadToStore(ws, t, await png(7), { collection_token: (await newBoard(db, ws)).token });
    fs.rmSync(await dataFile(a.primary_storage_id));
    const written: string[] = [];
    const out: string[] = [];
    const tty = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
    Object.defineProperty(process.stderr, "isTTY", { value: true, configurable: true });
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
    try {
      await expect(storageVerify.run(db, ["--workspace", ws.slug], { out: (l) => out.push(l) })).rejects.toThrow(/1 missing, 0 corrupt/);
    } finally {
      write.mockRestore();
      if (tty) Object.defineProperty(process.stderr, "isTTY", tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    expect(out).toEqual([`missing ${a.primary_storage_id} (asset ${a.token} v1)`, "verify: 1 objects checked, 1 missing, 0 corrupt"]);
    expect(written.join("")).toMatch(/^(\r\x1b\[Kverify: \d+ objects, [\d.]+ MiB read, \d+ missing, \d+ corrupt)*\r\x1b\[K$/);
    expect(written.some((w) => w.includes("verify: 1 objects"))).toBe(true);
  });
});
