import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as aiRoute from "../../app/v1/[slug]/ai_search/route";
import { assetEmbeddings, type Asset, type Workspace } from "../../lib/db/schema";
import { embeddingsConfig } from "../../lib/embeddings/config";
import { embedAsset } from "../../lib/embeddings/embed-asset";
import { unpackVector } from "../../lib/embeddings/vector";
import { resetEnvCache } from "../../lib/env";
import { processAssetJob } from "../../lib/media/process-asset.job";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { DIMENSIONS, startEmbeddingsServer, type FakeEmbeddings } from "../helpers/embeddings-server";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";

/**
 * ai_search with and without an embeddings service, against a real HTTP server on 127.0.0.1 that
 * speaks the OpenAI embeddings shape (tests/helpers/embeddings-server.ts): vectors stored by the
 * processing job, meaning found where full text finds nothing, and every failure of the service
 * leaving processing and search working.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let fake: FakeEmbeddings;
let ws: Workspace;
let token: string;
let dog: Asset;
let harbour: Asset;
const MODEL = "bag-of-words-v1";

function configure(on: boolean, url = fake.url) {
  if (on) {
    process.env.EASEL_EMBEDDINGS_URL = url;
    process.env.EASEL_EMBEDDINGS_MODEL = MODEL;
  } else {
    delete process.env.EASEL_EMBEDDINGS_URL;
    delete process.env.EASEL_EMBEDDINGS_MODEL;
  }
  resetEnvCache();
}

beforeAll(async () => {
  deps = await useTestDeps();
  fake = await startEmbeddingsServer();
  ws = await newWorkspace(deps.db);
  token = await newApiToken(deps.db, ws);
  dog = await insertAsset(deps.db, ws, { title: "Golden retriever on the sand", description: "our dog at the seaside", tags: ["pets"], media: { width: 800, height: 1200, colors: ["yellow"] } });
  harbour = await insertAsset(deps.db, ws, { title: "Harbour at dawn", description: "fishing boats", media: { width: 1600, height: 900, colors: ["blue"] } });
});
afterEach(() => {
  fake.mode = "ok";
  configure(false);
});
afterAll(() => fake.close());

const ai = (query: string) => call(aiRoute.GET, { path: `/v1/${ws.slug}/ai_search?query=${encodeURIComponent(query)}`, token, params: { slug: ws.slug } });
const tokens = (res: { body: { data: { token: string }[] } }) => res.body.data.map((a) => a.token);
const vectorOf = async (id: number) => (await deps.db.select().from(assetEmbeddings).where(eq(assetEmbeddings.assetId, id)))[0];

async function runProcessing(assetId: number) {
  const t = new InngestTestEngine({ function: processAssetJob, events: [{ name: "asset/processing.requested", data: { assetId } }] });
  const { result, error } = await t.execute();
  expect(error).toBeUndefined();
  return result as { status: string };
}

const png = (r: number, g: number, b: number) => sharp({ create: { width: 40, height: 60, channels: 3, background: { r, g, b } } }).png().toBuffer();

describe("with EASEL_EMBEDDINGS_URL unset", () => {
  it("processing and ai_search call nothing and store no vector", async () => {
    const before = fake.requests.length;
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await png(10, 200, 10), { title: "A puppy in the garden" });
    expect(await runProcessing(asset.id)).toMatchObject({ status: "processed" });
    expect(await vectorOf(asset.id)).toBeUndefined();
    const res = await ai("puppy");
    expect(tokens(res)).toEqual([asset.token]);
    expect(res.body.explanation).toBe("Looking for matching “puppy”.");
    expect(tokens(await ai("canine"))).toEqual([]);
    expect(fake.requests.length).toBe(before);
  });
});

describe("with an embeddings service", () => {
  it("stores a unit vector of the asset's text when processing, and does not call again for unchanged content", async () => {
    configure(true);
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await png(200, 20, 30), { title: "Kitten asleep, a feline nap" });
    expect(await runProcessing(asset.id)).toMatchObject({ status: "processed" });
    const stored = await vectorOf(asset.id);
    expect(stored).toMatchObject({ model: MODEL });
    const vector = unpackVector(stored.vector);
    expect(vector).toHaveLength(DIMENSIONS);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    // What was embedded: the words and what processing measured (kind, shape, colour).
    expect(fake.inputs.at(-1)).toBe("Kitten asleep, a feline nap\nimage (image/png), 40×60, portrait, mostly red");
    const calls = fake.requests.length;
    expect(await runProcessing(asset.id)).toMatchObject({ status: "processed" });
    expect(fake.requests.length).toBe(calls);
    expect(await embedAsset(deps, embeddingsConfig()!, asset.id)).toEqual({ status: "unchanged" });
  });

  it("finds by meaning what full text does not find, and ranks it first", async () => {
    configure(true);
    for (const a of [dog, harbour]) expect(await embedAsset(deps, embeddingsConfig()!, a.id)).toEqual({ status: "embedded" });
    // No asset has the word "canine": full text alone finds nothing.
    configure(false);
    expect(tokens(await ai("canine photos"))).toEqual([]);
    configure(true);
    const res = await ai("canine photos");
    expect(res.status).toBe(200);
    expect(tokens(res)).toEqual([dog.token]);
    expect(res.body.pagy.total_count).toBe(1);
    expect(res.body.data[0].score).toBeGreaterThan(0.3);
    expect(res.body.explanation).toMatch(/^Looking for image files, matching “canine”\. Ranked by full-text match plus closeness in meaning to “canine” \(embeddings of model bag-of-words-v1\)/);
    expect(res.body.interpretation).toMatchObject({ kinds: ["image"], words: ["canine"] });
  });

  it("adds meaning to full-text rank, and the parsed filters still hold", async () => {
    configure(true);
    const both = await ai("harbor boats");
    // "boats" matches by full text; "harbor" (American spelling) only by meaning.
    expect(tokens(both)[0]).toBe(harbour.token);
    expect(tokens(await ai("canine photos"))).toEqual([dog.token]);
    expect(tokens(await ai("canine videos"))).toEqual([]);
    expect(tokens(await ai("canine photos that are not yellow"))).toEqual([]);
    const noWords = await ai("landscape photos");
    expect(noWords.body.explanation).toBe("Looking for image files, landscape orientation.");
  });

  it("pages a ranking by meaning like any other", async () => {
    configure(true);
    // "retriever" matches the dog by its words; "harbor" finds the harbour by meaning alone.
    const q = "harbor retriever";
    const all = await call(aiRoute.GET, { path: `/v1/${ws.slug}/ai_search?per_page=100&query=${encodeURIComponent(q)}`, token, params: { slug: ws.slug } });
    expect(tokens(all)).toEqual(expect.arrayContaining([dog.token, harbour.token]));
    const paged: string[] = [];
    for (let page = 1; page <= tokens(all).length; page++) {
      const res = await call(aiRoute.GET, { path: `/v1/${ws.slug}/ai_search?per_page=1&page=${page}&query=${encodeURIComponent(q)}`, token, params: { slug: ws.slug } });
      expect(res.body.pagy).toMatchObject({ current_page: page, page_items: 1, total_count: tokens(all).length });
      paged.push(...tokens(res));
    }
    expect(paged).toEqual(tokens(all));
    const scores = all.body.data.map((a: { score: number }) => a.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  for (const mode of ["error", "malformed", "wrong-shape", "down"] as const) {
    it(`keeps processing and ai_search working when the service is ${mode}`, async () => {
      const warn = console.warn;
      console.warn = () => undefined;
      try {
        configure(true, mode === "down" ? "http://127.0.0.1:9/v1/embeddings" : fake.url);
        if (mode !== "down") fake.mode = mode;
        const { asset } = await uploadAsset(ws, token, deps.store.s3, await png(10, 10, 220), { title: `Puppy on a ${mode} day` });
        expect(await runProcessing(asset.id)).toMatchObject({ status: "processed" });
        expect(await vectorOf(asset.id)).toBeUndefined();
        const res = await ai("puppy");
        expect(res.status).toBe(200);
        // Full text still finds the asset whose title says it; meaning is off for this query.
        expect(tokens(res)).toContain(asset.token);
        expect(tokens(res)).not.toContain(dog.token);
        expect(res.body.explanation).toMatch(/^Looking for matching “puppy”\. Embeddings are configured but unavailable \(.+\): matched by full text only\.$/);
      } finally {
        console.warn = warn;
      }
    });
  }

  it("ignores vectors of another model", async () => {
    configure(true);
    await deps.db.update(assetEmbeddings).set({ model: "older-model" }).where(eq(assetEmbeddings.assetId, dog.id));
    try {
      expect(tokens(await ai("canine photos"))).toEqual([]);
    } finally {
      await deps.db.update(assetEmbeddings).set({ model: MODEL }).where(eq(assetEmbeddings.assetId, dog.id));
    }
  });
});
