import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, builtAppDir, freePort, scratchDatabase, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";
import { recordedReleases } from "../../lib/db/check-migrations/releases";
import { S3RVER_CREDENTIALS, startS3rver } from "../../lib/objectstore/testing/s3rver";
import { buildRelease, repoRoot } from "./release-build";
import { uploadAsset } from "./release-data";

/**
 * A rolling upgrade on PostgreSQL: two nodes of the previous release (the last in
 * lib/db/check-migrations/releases.json) serve reads and writes on one database and one bucket;
 * a node of this build starts, migrates the database under the traffic, and joins. Requests are
 * spread over the nodes that answer their health check, as a load balancer does. Every request
 * must succeed, on the old nodes before, during and after the migration, and on the new one.
 */
const pgServer = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
const previous = recordedReleases(repoRoot).at(-1)!;
const BUCKET = "easel-rolling";
const SLUG = "rolling";

describe.runIf(Boolean(pgServer))(`a rolling upgrade from ${previous.name} on PostgreSQL`, () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  let oldDir: string;
  beforeAll(() => {
    oldDir = buildRelease(previous.commit).dir;
  }, 1_200_000);

  it("serves every request while a new node migrates and joins", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "easel-rolling-"));
    cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));
    const db = await scratchDatabase(pgServer!, "rolling");
    cleanups.push(db.drop);
    const s3 = await startS3rver(path.join(work, "s3"), [BUCKET]);
    cleanups.push(s3.close);
    const shared = {
      DATABASE_URL: db.url,
      TEST_DATABASE_URL: undefined,
      EASEL_S3_BUCKET: BUCKET,
      EASEL_S3_ENDPOINT: s3.origin,
      EASEL_S3_REGION: "us-east-1",
      EASEL_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      EASEL_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      EASEL_S3_FORCE_PATH_STYLE: "1",
      EASEL_RATE_LIMIT_PER_MIN: "1000000",
    };
    const nodes: EaselNode[] = [];
    cleanups.push(() => Promise.all(nodes.map(stopNode)));
    for (let i = 0; i < 2; i++) {
      const node = startNode(oldDir, { ...shared, EASEL_DATA_DIR: path.join(work, `old-${i}`) }, await freePort());
      nodes.push(node);
      await waitFor200(node, "/v1/openapi.json", {}, 180_000);
    }
    const { cli } = await import("../../bench/scale/cluster");
    await cli({ DATABASE_URL: db.url }, "workspace", "create", SLUG, "--plan", "team");
    const token = await cli({ DATABASE_URL: db.url }, "token", "create", SLUG, "--scopes", "read,write");
    const board = (await api(nodes[0].origin, token, "POST", `/v1/${SLUG}/boards`, { board: { title: "Rolling" } })).body.data.token as string;
    const asset = await uploadAsset(nodes[0].origin, token, SLUG, board, "Rolling asset");

    // ---- traffic over the nodes in rotation, counted by node kind and status
    const inRotation: { node: EaselNode; kind: "old" | "new" }[] = nodes.map((node) => ({ node, kind: "old" }));
    const counts = new Map<string, number>();
    const failures: string[] = [];
    let stop = false;
    let turn = 0;
    const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    const requests: [string, string, unknown?][] = [
      ["GET", `/v1/${SLUG}/boards`],
      ["GET", `/v1/${SLUG}/assets/${asset}`],
      ["GET", `/v1/${SLUG}/assets/${asset}/versions`],
      ["POST", `/v1/${SLUG}/boards`, { board: { title: "during the upgrade", parent_token: board } }],
      ["PATCH", `/v1/${SLUG}/assets/${asset}`, { asset: { create_version: true, description: "", comment: "rolling" } }],
    ];
    const worker = async () => {
      while (!stop) {
        const target = inRotation[turn++ % inRotation.length];
        const [method, pathname, body] = requests[turn % requests.length];
        const description = `${method} ${pathname.replace(asset, ":asset")}`;
        try {
          const r = await fetch(`${target.node.origin}${pathname}`, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(method === "PATCH" ? { asset: { create_version: true, description: `turn ${turn}`, comment: "rolling" } } : body),
          });
          await r.arrayBuffer();
          count(`${target.kind} ${r.status}`);
          if (r.status >= 300) failures.push(`${target.kind} ${description} → ${r.status}`);
        } catch (err) {
          count(`${target.kind} network error`);
          failures.push(`${target.kind} ${description}: ${(err as Error).message}`);
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    await new Promise((r) => setTimeout(r, 2_000));

    // ---- the new build starts on the same database and bucket, migrates, and joins the rotation
    const fresh = startNode(builtAppDir(), { ...shared, EASEL_DATA_DIR: path.join(work, "new") }, await freePort());
    nodes.push(fresh);
    const readyMs = await waitFor200(fresh, "/v1/openapi.json", {}, 180_000);
    inRotation.push({ node: fresh, kind: "new" });
    await new Promise((r) => setTimeout(r, 8_000));
    stop = true;
    await Promise.all(workers);

    const summary = [...counts.entries()].sort().map(([k, v]) => `${k}: ${v}`);
    console.log(`[rolling] new node ready after ${Math.round(readyMs)} ms; requests by node and status: ${summary.join(", ")}`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(counts.get("new 200") ?? 0).toBeGreaterThan(0);
    expect(counts.get("old 200") ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
