import { fork, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { storeBodiesInUse } from "../../lib/objectstore/admission/store-admission";
import { embeddedS3Credentials } from "../../lib/objectstore/identity";
import { exited } from "../helpers/child-process";
import { newWorkspace } from "../helpers/factories";
import { expectOtherTenantUnharmed, measureOtherTenant, newOtherTenant, startEaselServer, type OtherTenant } from "../helpers/other-tenant";
import { useVideoJobs } from "../video/helpers";

/**
 * The slow-body attack on the embedded store (contract §13 "Bounded connections"): one workspace
 * opens 10,000 uploads that declare 4 MB and send one byte, to ONE presigned PUT URL from one
 * address, then spread over 2,000 URLs and 200 client addresses. Every body past the bounds (4
 * per URL, EASEL_MAX_UPLOADS_PER_WORKSPACE per workspace) must be refused at once with S3's
 * 503 SlowDown, Retry-After and a closed connection, so the attacker holds a bounded number of
 * sockets and temporary files; meanwhile the other workspace is measured the three ways of §13
 * "Tested as a promise" (tests/helpers/other-tenant.ts): its /v1 reads over this server keep p99 <
 * 250 ms, /healthz answers 200 from the attacker's own address, and its new PNG gets thumbnails
 * within 30 s (that upload's bytes go to the test's in-process store; a 64 KiB PUT of the other
 * workspace's through this server, to a presigned URL, succeeds as well).
 *
 * The attacker runs in a process of its own (slow-bodies-attacker.mjs) with its own open-file limit,
 * opening connections in waves; a wave's refused connections close before the next opens.
 */
const TOTAL = 10_000;
const WAVE = 100;
const PER_URL = 4;
const PER_WORKSPACE = 64;

let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let server: Awaited<ReturnType<typeof startEaselServer>>;
let port: number;
let s3: S3Client;
let attacker: Workspace;
let victim: OtherTenant;
const attackers = new Set<ChildProcess>();

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "1000000";
  process.env.EASEL_MAX_UPLOADS_PER_WORKSPACE = String(PER_WORKSPACE);
  resetEnvCache();
  deps = await useVideoJobs();
  attacker = await newWorkspace(deps.db, { plan: "team" });
  victim = await newOtherTenant(deps.db);
  // The shipped bounds: 120 s of silence before a body is cut, 256 connections per address.
  server = await startEaselServer({ maxConnectionsPerAddress: 256, trustProxyHops: 0 });
  port = server.port;
  const credentials = await embeddedS3Credentials(deps.db);
  s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}/storage/s3`, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "slow-bodies" })).catch((err: Error) => {
    if (err.name !== "BucketAlreadyOwnedByYou") throw err;
  });
}, 180_000);

afterAll(async () => {
  for (const child of attackers) child.kill();
  await server?.close();
  delete process.env.EASEL_MAX_UPLOADS_PER_WORKSPACE;
  resetEnvCache();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the upload_prepare of a workspace hands out: a presigned PUT for one of its keys. */
const presignedPut = (ws: Workspace, name: string) => getSignedUrl(s3, new PutObjectCommand({ Bucket: "slow-bodies", Key: `ws/${ws.id}/originals/${name}` }), { expiresIn: 3600 });

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

/** The other workspace measured from its reads' address, /healthz from the attacker's own. */
const measureVictim = () => measureOtherTenant({ port, db: deps.db, storage: deps.store.s3, tenant: victim, readsFrom: "127.0.0.250", healthFrom: "127.0.0.1" });

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
    const seen = await measureVictim();
    const { report, release } = await attack(Array.from({ length: TOTAL }, () => ({ url, from: "127.0.0.1" })), PER_URL);
    // While the attacker's connections are still held.
    seen.upload();
    const legit = await legitPut(await presignedPut(victim.ws, "legit-1"), crypto.randomBytes(64 * 1024));
    const figures = await seen.stop();
    await release();
    checkRefusals(report, "one URL, one address");
    expect(report.held).toBe(PER_URL);
    expectOtherTenantUnharmed(figures, "slow bodies, one URL, one address");
    expect(legit).toBe(200);
    await slotsGivenBack();
    // The URL takes a body again once the held ones are gone.
    expect(await legitPut(url, crypto.randomBytes(1024))).toBe(200);
  }, 600_000);

  it(`${TOTAL} slow bodies over 2,000 URLs from 200 addresses: at most EASEL_MAX_UPLOADS_PER_WORKSPACE are read`, async () => {
    const urls = await Promise.all(Array.from({ length: 2_000 }, (_, i) => presignedPut(attacker, `spread-${i}`)));
    const seen = await measureVictim();
    const targets = Array.from({ length: TOTAL }, (_, i) => ({ url: urls[i % urls.length], from: `127.0.0.${2 + (i % 200)}` }));
    const { report, release } = await attack(targets, PER_WORKSPACE);
    seen.upload();
    const legit = await legitPut(await presignedPut(victim.ws, "legit-2"), crypto.randomBytes(64 * 1024));
    const figures = await seen.stop();
    await release();
    checkRefusals(report, "2,000 URLs, 200 addresses");
    expect(report.held).toBe(PER_WORKSPACE);
    expectOtherTenantUnharmed(figures, "slow bodies, 2,000 URLs, 200 addresses");
    expect(legit).toBe(200);
    await slotsGivenBack();
  }, 600_000);
});
