import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as aiRoute from "../../app/v1/[slug]/ai_search/route";
import { assetEmbeddings, type Workspace } from "../../lib/db/schema";
import { jobRuns } from "../../lib/db/schema/jobs";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { startEmbeddingsServer, type FakeEmbeddings } from "../helpers/embeddings-server";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { assetRow, useVideoJobs, waitFor } from "../video/helpers";

/**
 * The embedding step as the server runs it: upload_complete queues processing, the embedded
 * executor runs the real function (steps, memoisation), the vector lands, ai_search finds by meaning.
 * And a service answering 500 leaves the run completed with thumbnails and no vector.
 */
let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let fake: FakeEmbeddings;
let ws: Workspace;
let token: string;

beforeAll(async () => {
  fake = await startEmbeddingsServer();
  process.env.EASEL_EMBEDDINGS_URL = fake.url;
  process.env.EASEL_EMBEDDINGS_MODEL = "bag-of-words-v1";
  resetEnvCache();
  deps = await useVideoJobs();
  ws = await newWorkspace(deps.db);
  token = await newApiToken(deps.db, ws);
});
afterAll(async () => {
  delete process.env.EASEL_EMBEDDINGS_URL;
  delete process.env.EASEL_EMBEDDINGS_MODEL;
  resetEnvCache();
  await fake.close();
});

const png = () => sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 30, g: 160, b: 40 } } }).png().toBuffer();
const vectorOf = async (id: number) => (await deps.db.select().from(assetEmbeddings).where(eq(assetEmbeddings.assetId, id)))[0];
const runsOf = async () => (await deps.db.select().from(jobRuns)).filter((r) => r.functionId.endsWith("asset-process"));

describe("the processing job with an embeddings service, on the embedded executor", () => {
  it("stores the vector after upload, and ai_search finds the asset by meaning", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await png(), { title: "Retriever puppy in the park" });
    await waitFor(() => vectorOf(asset.id), (v) => v !== undefined, 30_000);
    const res = await call(aiRoute.GET, { path: `/v1/${ws.slug}/ai_search?query=canine`, token, params: { slug: ws.slug } });
    expect(res.body.data.map((a: { token: string }) => a.token)).toEqual([asset.token]);
  });

  it("completes processing when the service answers 500", async () => {
    fake.mode = "error";
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      const { asset } = await uploadAsset(ws, token, deps.store.s3, await png(), { title: "Hound on the beach" });
      const row = await waitFor(() => assetRow(deps.db, asset.id), (a) => a.thumbnails.length === 3, 30_000);
      expect(row.mediaType).toBe("image/png");
      const runs = await waitFor(runsOf, (rs) => rs.length === 2 && rs.every((r) => r.status === "completed"), 30_000);
      expect(runs.map((r) => r.status)).toEqual(["completed", "completed"]);
      expect(await vectorOf(asset.id)).toBeUndefined();
    } finally {
      console.warn = warn;
      fake.mode = "ok";
    }
  });
});
