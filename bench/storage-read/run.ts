/**
 * Storage read benchmark: the server reading an original from the embedded store, as the
 * processing job does (`storage.read(key)`, the whole stream consumed), two ways side by side:
 *
 * - **http**: the S3 driver's client sends its requests over loopback HTTP to the store's route,
 *   served by the same node:http bridge `npm start` serves `/storage/s3` with (both ends in this
 *   process, as they were when the server called its own origin);
 * - **in-process**: the same driver with the in-process request handler (lib/storage/s3/in-process-handler.ts),
 *   which hands each signed request to the store's handler directly.
 *
 *   npx tsx bench/storage-read/run.ts [--size-mib 100] [--runs 5]
 *
 * The object is read once before timing, so every timed read finds it in the page cache. Each run
 * reads with both, alternately; figures are wall time and this process's CPU (user + system).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { systemClock } from "../../lib/clock";
import { layout } from "../../lib/objectstore/disk/layout";
import { S3_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { handleS3Request } from "../../lib/objectstore/s3/handler";
import { listen } from "../../lib/objectstore/testing/node-server";
import { makeS3Client } from "../../lib/storage/s3/config";
import { createS3Driver } from "../../lib/storage/s3/driver";
import { inProcessRequestHandler } from "../../lib/storage/s3/in-process-handler";
import type { StorageDriver } from "../../lib/storage/types";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/) as [string, string]));
const SIZE = Number(args["size-mib"] ?? 100) * 1024 * 1024;
const RUNS = Number(args.runs ?? 5);
const credentials = { accessKeyId: "EASELBENCHREAD", secretAccessKey: "bench-secret" };
const root = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-read-"));
const lay = layout(root);
const serve = (req: Request) => handleS3Request(req, { lay, credentials: async () => credentials, clock: systemClock, mountPath: S3_MOUNT_PATH });

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  return bytes;
}

async function timedRead(driver: StorageDriver): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const bytes = await drain(await driver.read("original.bin"));
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (bytes !== SIZE) throw new Error(`read ${bytes} bytes, expected ${SIZE}`);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function main() {
  const server = await listen(serve);
  const settings = { endpoint: `${server.origin}${S3_MOUNT_PATH}`, region: "us-east-1", bucket: "easel", forcePathStyle: true, credentials, embedded: true };
  const httpClient = makeS3Client(settings);
  const inProcessClient = makeS3Client(settings, inProcessRequestHandler(serve));
  const drivers: Record<string, StorageDriver> = {
    http: createS3Driver(async () => ({ client: httpClient, bucket: "easel" }), systemClock),
    "in-process": createS3Driver(async () => ({ client: inProcessClient, bucket: "easel" }), systemClock),
  };
  await inProcessClient.send(new CreateBucketCommand({ Bucket: "easel" }));
  await inProcessClient.send(new PutObjectCommand({ Bucket: "easel", Key: "original.bin", Body: crypto.randomBytes(SIZE) }));
  for (const d of Object.values(drivers)) await timedRead(d); // warm: page cache, connections, JIT

  const results: Record<string, { ms: number; cpuMs: number }[]> = { http: [], "in-process": [] };
  for (let run = 0; run < RUNS; run++) for (const name of run % 2 ? ["in-process", "http"] : ["http", "in-process"]) results[name].push(await timedRead(drivers[name]));

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const row = (name: string) => ({ ms: median(results[name].map((r) => r.ms)), cpu: median(results[name].map((r) => r.cpuMs)) });
  const http = row("http");
  const local = row("in-process");
  console.log(`storage read of a ${SIZE / 1024 / 1024} MiB original, median of ${RUNS} runs each, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  console.log(`| path | wall ms | CPU ms | MiB/s |`);
  console.log(`|---|---|---|---|`);
  for (const [name, r] of [["http (before)", http], ["in-process (after)", local]] as const) console.log(`| ${name} | ${r.ms.toFixed(0)} | ${r.cpu.toFixed(0)} | ${(SIZE / 1024 / 1024 / (r.ms / 1000)).toFixed(0)} |`);
  console.log(`in-process / http: wall ${(local.ms / http.ms).toFixed(2)} ×, CPU ${(local.cpu / http.cpu).toFixed(2)} ×`);
  httpClient.destroy();
  inProcessClient.destroy();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
