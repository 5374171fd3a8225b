import { execFileSync, fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { storeBodiesInUse } from "../../lib/objectstore/admission/store-admission";
import { embeddedS3Credentials } from "../../lib/objectstore/identity";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer } from "../../lib/server/http-server.mjs";
import { openFileLimitsOf } from "../../lib/server/open-file-limit.mjs";
import { exited } from "../helpers/child-process";
import { useTestDeps } from "../helpers/deps";
import { newWorkspace } from "../helpers/factories";

/**
 * The open-file bound of the embedded store (contract §13): past 80 % of the process's open-file
 * limit new upload bodies are refused (503 SlowDown) while /healthz keeps answering. This process's
 * soft limit is lowered with prlimit to 200 above what it has open, so the bound is reached with a
 * few dozen held bodies instead of thousands, then restored.
 */
const BODIES = 150;

let server: http.Server;
let port: number;
let s3: S3Client;
let attacker: Workspace;
let original: { soft: number; hard: number };
let child: ChildProcess | undefined;

const limits = () => openFileLimitsOf(fs.readFileSync("/proc/self/limits", "utf8"))!;
const openFiles = () => fs.readdirSync("/proc/self/fd").length;
const setSoftLimit = (soft: number) => execFileSync("prlimit", ["--pid", String(process.pid), `--nofile=${soft}:${original.hard}`]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const deps = await useTestDeps();
  attacker = await newWorkspace(deps.db, { plan: "team" });
  publishDirectRoutes();
  server = createEaselServer(async (_req, res) => void res.writeHead(404).end(), { maxConnectionsPerAddress: 10_000, trustProxyHops: 0 });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as net.AddressInfo).port;
  s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}/storage/s3`, region: "us-east-1", forcePathStyle: true, credentials: await embeddedS3Credentials(deps.db), requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "open-files" })).catch((err: Error) => {
    if (err.name !== "BucketAlreadyOwnedByYou") throw err;
  });
  original = limits();
}, 180_000);

afterAll(async () => {
  // The held connections first: restoring the limit needs a file (prlimit's pipes) of its own.
  if (child) {
    child.kill();
    await exited(child);
  }
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  unpublishDirectRoutes();
  if (original && limits().soft !== original.soft) setSoftLimit(original.soft);
});

const presignedPut = (name: string) => getSignedUrl(s3, new PutObjectCommand({ Bucket: "open-files", Key: `ws/${attacker.id}/originals/${name}` }), { expiresIn: 3600 });

function get(pathname: string) {
  return new Promise<number>((resolve) => {
    http.get({ host: "127.0.0.1", port, path: pathname, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    }).on("error", () => resolve(0));
  });
}

describe("open files", () => {
  it("past 80 % of the open-file limit new bodies are refused with 503 SlowDown; /healthz answers; bodies are taken again once files are freed", async () => {
    // A first upload starts the store's reading of /proc/self/fd.
    expect((await fetch(await presignedPut("warm-up"), { method: "PUT", body: "x" })).status).toBe(200);
    const soft = openFiles() + 200;
    setSoftLimit(soft);
    await sleep(600); // two readings of the open-file estimate
    const urls = await Promise.all(Array.from({ length: BODIES }, (_, i) => presignedPut(`fd-${i}`)));
    child = fork(path.join(import.meta.dirname, "slow-bodies-attacker.mjs"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const report = new Promise<{ sent: number; held: number; statusLines: Record<string, number>; retryAfter: boolean; slowDown: boolean }>((resolve) => child!.once("message", (m) => resolve(m as never)));
    child.send({ port, targets: urls.map((url, i) => ({ url, from: `127.0.0.${2 + (i % 50)}` })), wave: 5, maxHeld: BODIES });
    const seen = await report;
    const held = storeBodiesInUse("workspace", String(attacker.id));
    const health = await get("/healthz");
    const peak = openFiles();
    console.log(`[open-files] soft limit lowered to ${soft} (hard ${original.hard}); ${seen.sent} slow bodies: ${held} read, refused ${JSON.stringify(seen.statusLines)}; ${peak} files open (refusals from ${Math.ceil(soft * 0.8)}); /healthz ${health}`);
    expect(held).toBeGreaterThan(10);
    expect(held).toBeLessThan(BODIES);
    expect(Object.keys(seen.statusLines)).toEqual(["HTTP/1.1 503 Service Unavailable"]);
    expect(seen.retryAfter && seen.slowDown).toBe(true);
    expect(peak).toBeLessThan(soft);
    expect(health).toBe(200);

    child.send("release");
    await exited(child);
    setSoftLimit(original.soft);
    await sleep(600);
    expect(storeBodiesInUse("workspace", String(attacker.id))).toBe(0);
    expect((await fetch(await presignedPut("after"), { method: "PUT", body: "x" })).status).toBe(200);
  }, 120_000);
});
