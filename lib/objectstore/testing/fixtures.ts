import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import type { Clock } from "../../clock";
import { layout, type Layout } from "../disk/layout";
import { openObject } from "../disk/objects";
import { handleGcsRequest } from "../gcs/handler";
import type { GcsVerifier } from "../gcs/signed-url";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "../mounts";
import type { PresignedWrites } from "../s3/call";
import { handleS3Request } from "../s3/handler";
import type { S3Credentials } from "../s3/sigv4";
import { listen } from "./node-server";

/** A clock tests can move (the store and the signers both read it, as Easel's clock in production). */
export type MovableClock = Clock & { advance: (ms: number) => void; set: (at: Date) => void };

export function movableClock(): MovableClock {
  let offset = 0;
  const clock = (() => new Date(Date.now() + offset)) as MovableClock;
  clock.advance = (ms) => (offset += ms);
  clock.set = (at) => (offset = at.getTime() - Date.now());
  return clock;
}

const created: string[] = [];
// Registered when a test file imports this module, so it runs once that file's tests are done.
afterAll(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system temp dir, removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `easel-${prefix}-`));
  created.push(dir);
  return dir;
}

export type StoreServer = { origin: string; endpoint: string; lay: Layout; close: () => Promise<void> };

/**
 * The embedded store's S3 endpoint on a loopback port, files under `root`. `presignedWrites:
 * "replace"` makes it answer presigned writes as AWS S3 does, standing in for a real bucket.
 */
export async function startS3Store(opts: { root: string; credentials: () => Promise<S3Credentials>; clock: Clock; likeNext?: boolean; presignedWrites?: PresignedWrites }): Promise<StoreServer> {
  const lay = layout(opts.root);
  const server = await listen((req) => handleS3Request(req, { lay, credentials: opts.credentials, clock: opts.clock, mountPath: S3_MOUNT_PATH, presignedWrites: opts.presignedWrites }), { likeNext: opts.likeNext });
  return { origin: server.origin, endpoint: `${server.origin}${S3_MOUNT_PATH}`, lay, close: server.close };
}

/** The embedded store's GCS endpoint on a loopback port, files under `root`. */
export async function startGcsStore(opts: { root: string; identity: () => Promise<GcsVerifier>; clock: Clock }): Promise<StoreServer> {
  const lay = layout(opts.root);
  const server = await listen((req) => handleGcsRequest(req, { lay, identity: opts.identity, clock: opts.clock, mountPath: GCS_MOUNT_PATH }));
  return { origin: server.origin, endpoint: `${server.origin}${GCS_MOUNT_PATH}`, lay, close: server.close };
}

export const md5Hex = (bytes: Uint8Array) => crypto.createHash("md5").update(bytes).digest("hex");

/** Files left in the store's temp folder (a failed upload must leave none). */
export function tmpLeftovers(lay: Layout): string[] {
  try {
    return fs.readdirSync(lay.tmpDir);
  } catch {
    return [];
  }
}

/** The whole stored body of an object of the bucket `easel`, read from the store's files (not through a route). */
export async function storedBytes(lay: Layout, key: string): Promise<Buffer> {
  const opened = await openObject(lay, "easel", key);
  if (!opened) throw new Error(`${key} is not stored`);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
