import { beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, type Board, type Workspace } from "../../lib/db/schema";
import { OPERATIONS } from "../../lib/openapi/operations";
import updatedSample from "../../lib/webhooks/sample-events/asset_updated.json";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { checked } from "./recorder";
import { callerFor, v1Routes } from "./routes";

// One happy path through every documented operation. Each answer passes the recorder (strict
// schema of its operation and status); the last test asserts that every operation's success
// response was among them, so an operation added to the document without a test here fails.

/** A public address literal: passes the SSRF guard without a DNS lookup. */
const HOOK_URL = "https://93.184.215.14/easel-hook";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let rw: string;
let hooks: string;
let callOp: ReturnType<typeof callerFor>;

beforeAll(async () => {
  deps = await useTestDeps();
  callOp = callerFor(await v1Routes());
  ws = await newWorkspace(deps.db, { plan: "team" });
  board = await newBoard(deps.db, ws, { title: "Campaign" });
  rw = await newApiToken(deps.db, ws);
  hooks = await newApiToken(deps.db, ws, { webhooks: true });
});

const expectOk = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);

describe("every documented operation, answered as documented", () => {
  let sub: string;
  let assetToken: string;

  it("boards", async () => {
    const slug = ws.slug;
    const created = await callOp("createBoard", { token: rw, params: { slug }, json: { board: { title: "Sub", parent_token: board.token } } });
    expectOk(created, 201);
    sub = created.body.data.token;
    expectOk(await callOp("listBoards", { token: rw, params: { slug }, query: "per_page=5" }));
    expectOk(await callOp("getBoard", { token: rw, params: { slug, boardToken: board.token } }));
    expectOk(await callOp("updateBoard", { token: rw, params: { slug, boardToken: sub }, json: { board: { title: "Sub-board" } } }));
    expectOk(await callOp("listBoardChildren", { token: rw, params: { slug, boardToken: board.token } }));
  });

  it("uploads: prepare, send the bytes, complete", async () => {
    const bytes = await randomPng();
    const prep = await callOp("prepareUpload", { token: rw, params: { slug: ws.slug }, json: { asset: { title: "Harbour at dusk", media_type: "image/png", size: bytes.length } } });
    expectOk(prep);
    await deps.store.s3.send(prep.body.data, bytes);
    const done = await callOp("completeUpload", { token: rw, params: { slug: ws.slug }, json: { asset: { signed_storage_id: prep.body.data.signed_storage_id, collection_token: sub } } });
    expectOk(done);
    assetToken = done.body.data.token;
  });

  it("assets, lists and search", async () => {
    const slug = ws.slug;
    expectOk(await callOp("getAsset", { token: rw, params: { slug, token: assetToken } }));
    expectOk(await callOp("listAssets", { token: rw, params: { slug }, query: "query=harbour" }));
    expectOk(await callOp("listBoardAssets", { token: rw, params: { slug, boardToken: board.token }, query: "nested_assets=true" }));
    const found = await callOp("searchAssets", { token: rw, params: { slug }, query: "query=harb" });
    expectOk(found);
    expect(found.body.data).toHaveLength(1);
    const ai = await callOp("aiSearch", { token: rw, params: { slug }, query: `query=${encodeURIComponent("portrait photos from last week larger than 1 kb not blue")}` });
    expectOk(ai);
    expect(ai.body.interpretation.kinds).toEqual(["image"]);
  });

  it("versions: a version write, the list, a download link, a revert", async () => {
    const slug = ws.slug;
    const bytes = await randomPng();
    const prep = await callOp("prepareUpload", { token: rw, params: { slug }, json: { asset: { media_type: "image/png", size: bytes.length } } });
    await deps.store.s3.send(prep.body.data, bytes);
    const write = await callOp("updateAsset", {
      token: rw,
      params: { slug, token: assetToken },
      json: { asset: { create_version: true, signed_storage_id: prep.body.data.signed_storage_id, comment: "first cut" } },
    });
    expectOk(write);
    expect(write.body.head_version_number).toBe(2);
    const list = await callOp("listVersions", { token: rw, params: { slug, token: assetToken } });
    expectOk(list);
    expect(list.body.data.map((v: { version_number: number }) => v.version_number)).toEqual([1]);
    const link = await callOp("getDownloadLink", { token: rw, params: { slug, token: assetToken }, query: "version=1" });
    expectOk(link);
    expect(link.body.data.version_number).toBe(1);
    expectOk(await callOp("revertAsset", { token: rw, params: { slug, token: assetToken }, json: { version_number: 1, comment: "back" }, headers: { "if-match": "2" } }));
  });

  it("video: retry_video_processing queues an encode", async () => {
    const video = await insertAsset(deps.db, ws, { mediaType: "video/mp4", boardIds: [board.id] });
    expectOk(await callOp("retryVideoProcessing", { token: rw, params: { slug: ws.slug, token: video.token } }));
  });

  it("board access tokens: minted, then accepted by a read route", async () => {
    const minted = await callOp("createBoardAccessToken", { token: rw, params: { slug: ws.slug }, json: { board_token: board.token, expires_in: 600 } });
    expectOk(minted);
    const boards = await callOp("listBoards", { token: minted.body.data.access_token, params: { slug: ws.slug } });
    expectOk(boards);
    expect(boards.body.data.map((b: { token: string }) => b.token)).toEqual([board.token]);
  });

  it("webhooks: create, list, renew, deliveries, resend, delete", async () => {
    const created = await callOp("createTrigger", { token: hooks, json: { hook: "asset_updated", hook_url: HOOK_URL, organization_slug: ws.slug, collection_token: board.token } });
    expectOk(created, 201);
    const id: string = created.body.id;
    expectOk(await callOp("listTriggers", { token: hooks, query: `organization_slug=${ws.slug}` }));
    expectOk(await callOp("renewTrigger", { token: hooks, params: { id } }));
    const [row] = await deps.db
      .insert(webhookDeliveries)
      .values({ triggerId: id, messageId: "msg_1", event: "asset_updated", payload: updatedSample, attempt: 1, status: "failed", responseStatus: 500, error: "HTTP 500", durationMs: 12, createdAt: new Date() })
      .returning();
    const log = await callOp("listDeliveries", { token: hooks, params: { id } });
    expectOk(log);
    expect(log.body.data[0].payload).toEqual(updatedSample);
    expectOk(await callOp("resendDelivery", { token: hooks, params: { id, delivery_id: String(row.id) } }), 202);
    expectOk(await callOp("deleteTrigger", { token: hooks, params: { id } }), 204);
  });

  it("deleting the asset, and this document", async () => {
    expectOk(await callOp("deleteAsset", { token: rw, params: { slug: ws.slug, token: assetToken } }), 204);
    expectOk(await callOp("getOpenApiDocument"));
  });

  // Last in the file (tests run in order): a missing success answer means an operation went unexercised.
  it("checked a success answer of every operation against its schema", () => {
    const missing = OPERATIONS.map((o) => `${o.operationId} ${o.success.status}`).filter((k) => !checked.has(k));
    expect(missing).toEqual([]);
  });
});
