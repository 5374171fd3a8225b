import { beforeAll, describe, expect, it } from "vitest";
import type { Board, Workspace } from "../../lib/db/schema";
import { testDb } from "../helpers/db";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { complete, prepare, uploadAsset } from "../helpers/uploads";
import { patch, revert, versions } from "../helpers/versions";

/**
 * Real row-lock races need real connections: these run on PostgreSQL (TEST_DATABASE_URL). On the
 * embedded PGlite every transaction is serial, so there is nothing to race and they are skipped.
 */
const onPostgres = (await testDb()).kind === "postgres";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;
let board: Board;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  token = await newApiToken(deps.db, ws);
  board = await newBoard(deps.db, ws);
});

describe.skipIf(!onPostgres)("concurrency on PostgreSQL", () => {
  it("50 concurrent version writes and reverts on one asset: contiguous numbers, no duplicate, no lost snapshot", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await randomPng(), { collection_token: board.token });
    await patch(ws, token, asset.token, { create_version: true, comment: "seed" }); // v1 exists to revert to
    const writes = Array.from({ length: 40 }, (_, i) => () => patch(ws, token, asset.token, { create_version: true, comment: `w${i}` }));
    const reverts = Array.from({ length: 10 }, () => () => revert(ws, token, asset.token, { version_number: 1, comment: "r" }));
    const results = await Promise.all([...writes, ...reverts].sort(() => Math.random() - 0.5).map((f) => f()));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const list = (await versions(ws, token, asset.token, "?per_page=100")).body;
    const numbers = list.data.map((v: { version_number: number }) => v.version_number);
    const H = list.head_version_number;
    expect(numbers).toEqual(Array.from({ length: H - 1 }, (_, i) => H - 1 - i));
    const comments = list.data.map((v: { comment: string | null }) => v.comment);
    for (let i = 0; i < 40; i++) expect(comments.filter((c: string | null) => c === `w${i}`)).toHaveLength(1);
    expect(comments.filter((c: string | null) => c === "r").length).toBeGreaterThanOrEqual(1);
    expect(H - 1).toBe(1 + 40 + comments.filter((c: string | null) => c === "r").length);
  }, 120_000);

  it("20 concurrent upload_complete of one signed_storage_id create one asset", async () => {
    const bytes = await randomPng();
    const p = (await prepare(ws, token, { media_type: "image/png", size: bytes.length })).body.data;
    await deps.store.s3.send(p, bytes);
    const results = await Promise.all(Array.from({ length: 20 }, () => complete(ws, token, { signed_storage_id: p.signed_storage_id })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.data.token)).size).toBe(1);
  }, 60_000);
});
