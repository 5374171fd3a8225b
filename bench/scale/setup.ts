/**
 * A scaled-out Easel on one machine, for bench/scale and tests/scale: N server processes (`npm start`) of
 * one build (each its own port and EASEL_DATA_DIR) sharing one PostgreSQL database (created for the
 * run, dropped after) and one S3-compatible bucket (s3rver, in this process), behind a round-robin
 * proxy whose origin is every node's EASEL_PUBLIC_URL.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { S3RVER_CREDENTIALS, startS3rver } from "../../lib/objectstore/testing/s3rver";
import { builtAppDir, cli, freePort, scratchDatabase, startNode, startProxy, stopNode, waitFor200, type EaselNode, type Proxy } from "./cluster";

export const BUCKET = "easel-scale";

/** The PostgreSQL server a scale test runs on (TEST_DATABASE_URL, else DATABASE_URL); a scale test without one fails, never skips. */
export function scaleServerUrl(): string {
  const url = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!url) throw new Error("tests/scale needs PostgreSQL: set TEST_DATABASE_URL (a database of its own is created on that server)");
  return url;
}

export type Cluster = {
  nodes: EaselNode[];
  proxy: Proxy;
  databaseUrl: string;
  s3Origin: string;
  /** The admin CLI against the shared database. */
  cli: (...args: string[]) => Promise<string>;
  close: () => Promise<void>;
};

/**
 * `nodeEnv(i)` adds to node i's environment (EASEL_JOBS_DISABLED, rate limits…). `serverUrl` is
 * any database URL on the PostgreSQL server to use.
 */
export async function startCluster(opts: { serverUrl: string; nodes: number; env?: Record<string, string>; nodeEnv?: (i: number) => Record<string, string> }): Promise<Cluster> {
  const appDir = builtAppDir();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "easel-scale-"));
  const cleanups: (() => Promise<void> | void)[] = [() => fs.rmSync(work, { recursive: true, force: true })];
  const close = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  try {
    const db = await scratchDatabase(opts.serverUrl, "scale");
    cleanups.push(db.drop);
    const s3 = await startS3rver(path.join(work, "s3"), [BUCKET]);
    cleanups.push(s3.close);
    const ports = await Promise.all(Array.from({ length: opts.nodes }, freePort));
    const proxy = await startProxy(ports.map((p) => `http://127.0.0.1:${p}`));
    cleanups.push(proxy.close);
    const shared = {
      DATABASE_URL: db.url,
      EASEL_S3_BUCKET: BUCKET,
      EASEL_S3_ENDPOINT: s3.origin,
      EASEL_S3_REGION: "us-east-1",
      EASEL_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      EASEL_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      EASEL_S3_FORCE_PATH_STYLE: "1",
      EASEL_PUBLIC_URL: proxy.origin,
      ...opts.env,
    };
    // Started together on purpose: migrations must take turns on the advisory lock.
    const nodes = ports.map((port, i) => startNode(appDir, { ...shared, EASEL_DATA_DIR: path.join(work, `node-${i}`), ...opts.nodeEnv?.(i) }, port));
    cleanups.push(() => Promise.all(nodes.map(stopNode)).then(() => undefined));
    await Promise.all(nodes.map((n) => waitFor200(n)));
    return { nodes, proxy, databaseUrl: db.url, s3Origin: s3.origin, cli: (...args) => cli({ DATABASE_URL: db.url }, ...args), close };
  } catch (err) {
    await close();
    throw err;
  }
}
