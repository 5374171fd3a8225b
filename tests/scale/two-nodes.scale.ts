import crypto from "node:crypto";
import fs from "node:fs";
import postgres from "postgres";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaleServerUrl, startCluster, type Cluster } from "../../bench/scale/setup";

/**
 * Two app nodes (`npm start`'s server of one build, each its own port and data dir) on one PostgreSQL
 * database and one S3-compatible bucket (s3rver), behind a round-robin proxy: what docs/scaling.md
 * says the nodes share is shared (rate-limit windows among them).
 * Node A runs the embedded job executor; node B is kept out of the queue (EASEL_JOBS_DISABLED).
 * Needs a build (`npm run build`, or EASEL_APP_DIR) and PostgreSQL (TEST_DATABASE_URL or DATABASE_URL).
 */
const serverUrl = scaleServerUrl();

const BOARD_TOKEN_LIMIT = 10;
let cluster: Cluster;
let A: string;
let B: string;
let token: string;
let board: string;
let sql: postgres.Sql;

type Answer = { status: number; headers: Headers; body: any };
async function call(origin: string, method: string, pathname: string, opts: { body?: unknown; bearer?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const r = await fetch(`${origin}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${opts.bearer ?? token}`, "content-type": "application/json", ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
}

async function png(): Promise<Buffer> {
  return sharp({ create: { width: 16, height: 16, channels: 3, background: { r: crypto.randomInt(256), g: crypto.randomInt(256), b: 9 } } }).png().toBuffer();
}

/** upload_prepare on `prepareOn`, the bytes to the bucket, upload_complete on `completeOn`. */
async function upload(prepareOn: string, completeOn: string, bytes: Buffer) {
  const prep = await call(prepareOn, "POST", "/v1/scale/assets/upload_prepare", { body: { asset: { title: "scaled", media_type: "image/png", size: bytes.length } } });
  expect(prep.status).toBe(200);
  const put = await fetch(prep.body.data.upload_url, { method: "PUT", body: new Uint8Array(bytes), headers: { "content-type": "image/png" } });
  expect(put.status).toBe(200);
  const done = await call(completeOn, "POST", "/v1/scale/assets/upload_complete", { body: { asset: { signed_storage_id: prep.body.data.signed_storage_id, collection_token: board } } });
  return { prep: prep.body.data, done };
}

async function mintBoardToken(on: string): Promise<string> {
  const r = await call(on, "POST", "/v1/scale/access_tokens", { body: { board_token: board, expires_in: 600 } });
  expect(r.status).toBe(200);
  return r.body.data.access_token;
}

beforeAll(async () => {
  cluster = await startCluster({
    serverUrl,
    nodes: 2,
    env: { EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN: String(BOARD_TOKEN_LIMIT), EASEL_RATE_LIMIT_PER_MIN: "100000" },
    nodeEnv: (i): Record<string, string> => (i === 0 ? {} : { EASEL_JOBS_DISABLED: "1" }),
  });
  [A, B] = cluster.nodes.map((n) => n.origin);
  sql = postgres(cluster.databaseUrl, { max: 2, onnotice: () => undefined });
  await cluster.cli("workspace", "create", "scale", "--plan", "team");
  token = await cluster.cli("token", "create", "scale", "--scopes", "read,write");
  const b = await call(A, "POST", "/v1/scale/boards", { body: { board: { title: "Scaled" } } });
  expect(b.status).toBe(201);
  board = b.body.data.token;
}, 300_000);

afterAll(async () => {
  await sql?.end();
  await cluster?.close();
});

describe("two nodes on one PostgreSQL and one bucket", () => {
  it("migrated the shared database once although both nodes started together", async () => {
    const rows = await sql`select count(*)::int as n, count(distinct hash)::int as d from drizzle.__drizzle_migrations`;
    expect(rows[0].n).toBeGreaterThan(0);
    expect(rows[0].n).toBe(rows[0].d);
  });

  it("an upload prepared on one node completes on the other, and its bytes are in the shared bucket", async () => {
    const bytes = await png();
    const { prep, done } = await upload(A, B, bytes);
    expect(prep.upload_url.startsWith(cluster.s3Origin)).toBe(true);
    expect(done.status).toBe(200);
    expect(done.body.data.md5).toBe(crypto.createHash("md5").update(bytes).digest("hex"));
    const read = await call(A, "GET", `/v1/scale/assets/${done.body.data.token}`);
    expect(read.status).toBe(200);
    expect(read.body.data.md5).toBe(done.body.data.md5);
    // The other way round as well.
    const back = await upload(B, A, await png());
    expect(back.done.status).toBe(200);
  });

  it("40 concurrent version writes through both nodes: contiguous numbers, each write once", async () => {
    const { done } = await upload(A, B, await png());
    const asset = done.body.data.token;
    const writes = Array.from({ length: 40 }, (_, i) => call(i % 2 ? A : B, "PATCH", `/v1/scale/assets/${asset}`, { body: { asset: { create_version: true, comment: `w${i}` } } }));
    const results = await Promise.all(writes);
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const list = await call(B, "GET", `/v1/scale/assets/${asset}/versions?per_page=100`);
    expect(list.status).toBe(200);
    const H = list.body.head_version_number;
    const numbers = list.body.data.map((v: { version_number: number }) => v.version_number);
    expect(H - 1).toBe(40);
    expect(numbers).toEqual(Array.from({ length: H - 1 }, (_, i) => H - 1 - i));
    const comments = list.body.data.map((v: { comment: string | null }) => v.comment).sort();
    expect(comments).toEqual(Array.from({ length: 40 }, (_, i) => `w${i}`).sort());
    // Each node reports the same head.
    const onA = await call(A, "GET", `/v1/scale/assets/${asset}`);
    expect(onA.body.data.head_version_number).toBe(H);
  });

  it("a board access token minted on one node is accepted by the other: one signing key, in the settings table", async () => {
    const bt = await mintBoardToken(A);
    const onB = await call(B, "GET", `/v1/scale/boards/${board}/assets`, { bearer: bt });
    expect(onB.status).toBe(200);
    const keys = await sql`select count(*)::int as n from settings where key = 'board_token_key'`;
    expect(keys[0].n).toBe(1);
    const forged = `${bt.slice(0, -4)}${bt.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    expect((await call(B, "GET", `/v1/scale/boards/${board}/assets`, { bearer: forged })).status).toBe(401);
    // And the other way round.
    const bt2 = await mintBoardToken(B);
    expect((await call(A, "GET", `/v1/scale/boards/${board}/assets`, { bearer: bt2 })).status).toBe(200);
  });

  it("an Idempotency-Key replays the first response on the other node", async () => {
    const key = crypto.randomUUID();
    const first = await call(A, "POST", "/v1/scale/boards", { body: { board: { title: "Once" } }, headers: { "idempotency-key": key } });
    const again = await call(B, "POST", "/v1/scale/boards", { body: { board: { title: "Once" } }, headers: { "idempotency-key": key } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.token).toBe(first.body.data.token);
  });

  it("a board access token's rate limit is one budget for both nodes (tests/scale/rate-limits.scale.ts covers API tokens)", async () => {
    const bt = await mintBoardToken(A);
    const path = `/v1/scale/boards/${board}/assets`;
    const hit = async (origin: string) => (await call(origin, "GET", path, { bearer: bt })).status;
    const onA: number[] = [];
    for (let i = 0; i < BOARD_TOKEN_LIMIT; i++) onA.push(await hit(A));
    expect(onA).toEqual(Array(BOARD_TOKEN_LIMIT).fill(200));
    // Node B counts the requests node A answered.
    const onB = await call(B, "GET", path, { bearer: bt });
    expect(onB.status).toBe(429);
    expect(onB.body.errors[0].extensions.code).toBe("rate_limited");
    expect(onB.headers.get("ratelimit-remaining")).toBe("0");

    // Through the round-robin proxy a fresh token gets the budget once, not once per node.
    const fresh = await mintBoardToken(B);
    const statuses: number[] = [];
    for (let i = 0; i < BOARD_TOKEN_LIMIT + 4; i++) statuses.push((await call(cluster.proxy.origin, "GET", path, { bearer: fresh })).status);
    expect(statuses).toEqual([...Array(BOARD_TOKEN_LIMIT).fill(200), 429, 429, 429, 429]);
  });

  it("jobs queued by either node run on the one node with an executor", async () => {
    const bytes = await png();
    const { done } = await upload(B, B, bytes);
    expect(done.status).toBe(200);
    // The executor on A leases the runs node B's upload queued (shared job_* tables).
    const deadline = Date.now() + 60_000;
    let runs: { status: string }[] = [];
    while (Date.now() < deadline) {
      runs = await sql`
        select r.status from job_runs r join job_events e on e.id = r.event_id join assets a on a.id = (e.payload->'data'->>'assetId')::int
        where a.token = ${done.body.data.token}`;
      if (runs.length && runs.every((r) => r.status === "completed")) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.map((r) => r.status)).toEqual(runs.map(() => "completed"));
  });

  it("no node keeps anything in its data dir: the state is all in PostgreSQL and the bucket", () => {
    for (const node of cluster.nodes) {
      const dir = node.env.EASEL_DATA_DIR!;
      expect(fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }) : []).toEqual([]);
    }
  });
});
