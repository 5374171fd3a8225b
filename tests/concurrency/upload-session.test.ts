import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { assets, uploadSessions, type Board, type Workspace } from "../../lib/db/schema";
import type { Answer } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { complete, keyOf, prepare, uploadAsset } from "../helpers/uploads";
import { patch, versions } from "../helpers/versions";

/**
 * An upload session is claimed once (lib/uploads/session.ts): whichever consumer's
 * `pending → completed` update lands first uses the bytes, every other one reads what it did.
 * On PostgreSQL the consumers race on real connections; on PGlite (one session) their requests
 * still interleave between statements, and the answer must be the same.
 */

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

async function preparedBytes() {
  const bytes = await randomPng();
  const p = (await prepare(ws, token, { media_type: "image/png", size: bytes.length })).body.data;
  await deps.store.s3.send(p, bytes);
  return { sid: p.signed_storage_id as string, key: keyOf(p.upload_url) };
}

const codeOf = (r: Answer) => [r.status, r.body?.errors?.[0]?.extensions?.code ?? null];

describe("upload session claims", () => {
  it("10 concurrent version writes with one signed_storage_id write one version; the others answer 200 and write nothing", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await randomPng(), { collection_token: board.token });
    const { sid } = await preparedBytes();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => patch(ws, token, asset.token, { create_version: true, signed_storage_id: sid, comment: `c${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.body.head_version_number))).toEqual(new Set([2]));
    const list = (await versions(ws, token, asset.token)).body;
    expect(list.head_version_number).toBe(2);
    expect(list.data).toHaveLength(1);
  }, 60_000);

  it("upload_complete and version writes racing for one signed_storage_id: one kind of consumer wins, the other is refused", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await randomPng(), { collection_token: board.token });
    const { sid, key } = await preparedBytes();
    const [before] = await deps.db.select({ n: count() }).from(assets).where(eq(assets.workspaceId, ws.id));
    const completes = Array.from({ length: 5 }, () => async () => ({ kind: "complete", answer: await complete(ws, token, { signed_storage_id: sid }) }));
    const writes = Array.from({ length: 5 }, () => async () => ({ kind: "write", answer: await patch(ws, token, asset.token, { create_version: true, signed_storage_id: sid }) }));
    const results = await Promise.all([...completes, ...writes].sort(() => Math.random() - 0.5).map((f) => f()));
    const byCompletes = results.filter((r) => r.kind === "complete").map((r) => r.answer);
    const byWrites = results.filter((r) => r.kind === "write").map((r) => r.answer);
    const [session] = await deps.db.select().from(uploadSessions).where(eq(uploadSessions.storageKey, key));
    const [after] = await deps.db.select({ n: count() }).from(assets).where(eq(assets.workspaceId, ws.id));
    const head = (await versions(ws, token, asset.token)).body.head_version_number;
    if (byCompletes.some((r) => r.status === 200)) {
      // The asset won: one new asset, the version writes refused, the asset untouched.
      expect(byCompletes.map((r) => r.status)).toEqual(Array(5).fill(200));
      expect(new Set(byCompletes.map((r) => r.body.data.token)).size).toBe(1);
      expect(byWrites.map(codeOf)).toEqual(Array(5).fill([422, "invalid_signed_storage_id"]));
      expect(after.n).toBe(before.n + 1);
      expect(head).toBe(1);
      expect(session).toMatchObject({ status: "completed", consumedAs: "asset" });
    } else {
      // The version won: written once, no asset created.
      expect(byCompletes.map(codeOf)).toEqual(Array(5).fill([422, "invalid_signed_storage_id"]));
      expect(byWrites.map((r) => r.status)).toEqual(Array(5).fill(200));
      expect(after.n).toBe(before.n);
      expect(head).toBe(2);
      expect(session).toMatchObject({ status: "completed", consumedAs: "version", assetId: expect.any(Number) });
    }
  }, 60_000);
});
