import { fork, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { storeBodiesInUse } from "../../lib/objectstore/admission/store-admission";
import { embeddedS3Credentials } from "../../lib/objectstore/identity";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer } from "../../lib/server/http-server.mjs";
import { answerWith } from "../../lib/server/node-bridge";
import { exited } from "../helpers/child-process";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace } from "../helpers/factories";

/**
 * The slow-body attack on the embedded store (contract §13 "Bounded connections"): one workspace
 * opens 10,000 uploads that declare 4 MB and send one byte, to ONE presigned PUT URL from one
 * address, then spread over 2,000 URLs and 200 client addresses. Every body past the bounds (4
 * per URL, EASEL_MAX_UPLOADS_PER_WORKSPACE per workspace) must be refused at once with S3's
 * 503 SlowDown, Retry-After and a closed connection, so the attacker holds a bounded number of
 * sockets and temporary files; meanwhile another workspace's /v1 reads keep p99 < 250 ms, /healthz
 * answers 200 from the attacker's own address, and the other workspace's upload succeeds.
 *
 * The attacker runs in a process of its own (slow-bodies-attacker.mjs) with its own open-file limit,
 * opening connections in waves; a wave's refused connections close before the next opens.
 */
const TOTAL = 10_000;
const WAVE = 100;
const PER_URL = 4;
const PER_WORKSPACE = 64;

let server: http.Server;
let port: number;
let s3: S3Client;
let attacker: Workspace;
let victim: Workspace;
let victimToken: string;
const attackers = new Set<ChildProcess>();

async function nextLike(req: http.IncomingMessage, res: http.ServerResponse) {
  const boards = /^\/v1\/([^/]+)\/boards$/.exec(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
  if (!boards || req.method !== "GET") return void res.writeHead(404).end("not found");
  await answerWith((request) => boardsRoute.GET(request as never, { params: Promise.resolve({ slug: boards[1] }) }), req, res);
}

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "1000000";
  process.env.EASEL_MAX_UPLOADS_PER_WORKSPACE = String(PER_WORKSPACE);
  resetEnvCache();
  const deps = await useTestDeps();
  attacker = await newWorkspace(deps.db, { plan: "team" });
  victim = await newWorkspace(deps.db, { plan: "team" });
  victimToken = await newApiToken(deps.db, victim, { scopes: ["read", "write"] });
  publishDirectRoutes();
  // The shipped bounds: 120 s of silence before a body is cut, 256 connections per address.
  server = createEaselServer(nextLike, { maxConnectionsPerAddress: 256, trustProxyHops: 0 });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as net.AddressInfo).port;
  const credentials = await embeddedS3Credentials(deps.db);
  s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}/storage/s3`, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "slow-bodies" })).catch((err: Error) => {
    if (err.name !== "BucketAlreadyOwnedByYou") throw err;
  });
}, 180_000);

afterAll(async () => {
  for (const child of attackers) child.kill();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  unpublishDirectRoutes();
  delete process.env.EASEL_MAX_UPLOADS_PER_WORKSPACE;
  resetEnvCache();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

/** What the upload_prepare of a workspace hands out: a presigned PUT for one of its keys. */
const presignedPut = (ws: Workspace, name: string) => getSignedUrl(s3, new PutObjectCommand({ Bucket: "slow-bodies", Key: `ws/${ws.id}/originals/${name}` }), { expiresIn: 3600 });

/** GETs on fresh connections, one after another until stopped: the other workspace's reads and /healthz from the attacker's address. */
function watch() {
  const reads: { status: number; ms: number }[] = [];
  const health: number[] = [];
  let running = true;
  const get = (path: string, localAddress: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; ms: number }>((resolve) => {
      const started = performance.now();
      const req = http.get({ host: "127.0.0.1", port, path, localAddress, headers, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      });
      req.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
    });
  const loop = (async () => {
    while (running) {
      reads.push(await get(`/v1/${victim.slug}/boards`, "127.0.0.250", { authorization: `Bearer ${victimToken}` }));
      health.push((await get("/healthz", "127.0.0.1")).status);
      await sleep(5);
    }
  })();
  return {
    reads,
    health,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

type Report = {
  sent: number;
  held: number;
  stoppedEarly: boolean;
  statusLines: Record<string, number>;
  retryAfter: boolean;
  connectionClose: boolean;
  slowDown: boolean;
  sample: string | null;
  waits: { p50: number | null; p99: number | null; max: number | null };
};

/** Runs the attacker process on `targets`; its held connections stay open until `release()`. */
async function attack(targets: { url: string; from: string }[], maxHeld: number) {
  const child = fork(path.join(import.meta.dirname, "slow-bodies-attacker.mjs"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  attackers.add(child);
  const report = new Promise<Report>((resolve, reject) => {
    child.once("message", (m) => resolve(m as Report));
    child.once("exit", (code) => reject(new Error(`the attacker exited (${code}) before reporting`)));
  });
  const cpu = process.cpuUsage();
  child.send({ port, targets, wave: WAVE, maxHeld });
  const done = await report;
  const used = process.cpuUsage(cpu);
  // The server's CPU time per body it refused (this process also runs the other workspace's reads).
  console.log(`[slow-bodies] server CPU ${((used.user + used.system) / 1000).toFixed(0)} ms for ${done.sent} bodies: ${((used.user + used.system) / done.sent).toFixed(0)} µs each`);
  return {
    report: done,
    release: async () => {
      child.send("release");
      await exited(child);
      attackers.delete(child);
    },
  };
}

function checkRefusals(report: Report, label: string) {
  // (JSON carries no NaN: a percentile of no refusals arrives as null.)
  const ms = (n: number | null) => (n === null ? "-" : n.toFixed(0));
  console.log(`[slow-bodies] ${label}: ${report.sent} sent, ${report.held} held, refused ${JSON.stringify(report.statusLines)}, refusal after p50 ${ms(report.waits.p50)} ms, p99 ${ms(report.waits.p99)} ms, max ${ms(report.waits.max)} ms`);
  expect(report.stoppedEarly, `more bodies held than the bounds allow (${report.held} of ${report.sent})`).toBe(false);
  expect(report.sent).toBe(TOTAL);
  expect(Object.keys(report.statusLines)).toEqual(["HTTP/1.1 503 Service Unavailable"]);
  expect({ retryAfter: report.retryAfter, connectionClose: report.connectionClose, slowDown: report.slowDown }).toEqual({ retryAfter: true, connectionClose: true, slowDown: true });
  // "At once": no refusal waited for the body (which would have held it until the 120 s idle cut);
  // the figures include the attacker opening each wave of sockets on a shared machine.
  expect(report.waits.p50 ?? Infinity).toBeLessThan(1_000);
  expect(report.waits.max ?? Infinity).toBeLessThan(10_000);
}

function checkVictim(seen: ReturnType<typeof watch>, label: string) {
  const ms = seen.reads.map((r) => r.ms);
  console.log(`[slow-bodies] ${label}: the other workspace's ${seen.reads.length} reads ${JSON.stringify([...new Set(seen.reads.map((r) => r.status))])} p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; /healthz ${JSON.stringify([...new Set(seen.health)])} ×${seen.health.length}`);
  expect(seen.reads.length).toBeGreaterThan(100);
  expect(seen.reads.every((r) => r.status === 200)).toBe(true);
  expect(pct(ms, 99)).toBeLessThan(250);
  expect(seen.health.every((s) => s === 200)).toBe(true);
}

/** A whole small PUT to a presigned URL, from its own address: the other workspace's legit upload. */
async function legitPut(url: string, body: Buffer) {
  const target = new URL(url);
  return new Promise<number>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: `${target.pathname}${target.search}`, method: "PUT", localAddress: "127.0.0.251", agent: false, headers: { host: target.host, "content-length": String(body.length) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Every held body gave its slot back once its connection closed. */
async function slotsGivenBack() {
  const until = Date.now() + 10_000;
  while (storeBodiesInUse("workspace", String(attacker.id)) > 0 && Date.now() < until) await sleep(50);
  expect(storeBodiesInUse("workspace", String(attacker.id))).toBe(0);
}

describe("slow upload bodies are bounded", () => {
  it(`${TOTAL} slow bodies from one address to one presigned URL: ${PER_URL} are read, the rest refused at once; other tenants unaffected`, async () => {
    const url = await presignedPut(attacker, "one-url");
    const seen = watch();
    const { report, release } = await attack(Array.from({ length: TOTAL }, () => ({ url, from: "127.0.0.1" })), PER_URL);
    const legit = await legitPut(await presignedPut(victim, "legit-1"), crypto.randomBytes(64 * 1024));
    await seen.stop();
    await release();
    checkRefusals(report, "one URL, one address");
    expect(report.held).toBe(PER_URL);
    checkVictim(seen, "one URL, one address");
    expect(legit).toBe(200);
    await slotsGivenBack();
    // The URL takes a body again once the held ones are gone.
    expect(await legitPut(url, crypto.randomBytes(1024))).toBe(200);
  }, 600_000);

  it(`${TOTAL} slow bodies over 2,000 URLs from 200 addresses: at most EASEL_MAX_UPLOADS_PER_WORKSPACE are read`, async () => {
    const urls = await Promise.all(Array.from({ length: 2_000 }, (_, i) => presignedPut(attacker, `spread-${i}`)));
    const seen = watch();
    const targets = Array.from({ length: TOTAL }, (_, i) => ({ url: urls[i % urls.length], from: `127.0.0.${2 + (i % 200)}` }));
    const { report, release } = await attack(targets, PER_WORKSPACE);
    const legit = await legitPut(await presignedPut(victim, "legit-2"), crypto.randomBytes(64 * 1024));
    await seen.stop();
    await release();
    checkRefusals(report, "2,000 URLs, 200 addresses");
    expect(report.held).toBe(PER_WORKSPACE);
    checkVictim(seen, "2,000 URLs, 200 addresses");
    expect(legit).toBe(200);
    await slotsGivenBack();
  }, 600_000);
});
