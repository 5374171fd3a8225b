import { beforeAll, describe, expect, it } from "vitest";
import * as aiRoute from "../../app/v1/[slug]/ai_search/route";
import * as searchRoute from "../../app/v1/[slug]/search/route";
import type { Asset, Board, Workspace } from "../../lib/db/schema";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;
let boardA: Board;
let boardB: Board;
const lib: Record<string, Asset> = {};
const day = 86_400_000;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  token = await newApiToken(deps.db, ws);
  boardA = await newBoard(deps.db, ws, { title: "A" });
  boardB = await newBoard(deps.db, ws, { title: "B" });
  const ago = (n: number) => new Date(Date.now() - n * day);
  const A = [boardA.id];
  const B = [boardB.id];
  lib.harbourTitle = await insertAsset(deps.db, ws, { title: "Harbour at dawn", boardIds: A, createdAt: ago(40), media: { width: 1600, height: 900, colors: ["blue"] } });
  lib.harbourDesc = await insertAsset(deps.db, ws, { title: "Boats", description: "moored in the harbour", boardIds: A, createdAt: ago(2), media: { width: 800, height: 1200, colors: ["white"] } });
  lib.portraitRed = await insertAsset(deps.db, ws, { title: "Team portrait", tags: ["team", "summer"], boardIds: A, createdAt: ago(3), media: { width: 600, height: 900, colors: ["red"] } });
  lib.longVideo = await insertAsset(deps.db, ws, { title: "Launch film", mediaType: "video/mp4", tags: ["launch"], boardIds: B, createdAt: ago(1), media: { width: 1920, height: 1080, durationSeconds: 95 } });
  lib.shortVideo = await insertAsset(deps.db, ws, { title: "Teaser", mediaType: "video/mp4", boardIds: B, createdAt: ago(20), media: { width: 1080, height: 1920, durationSeconds: 12 } });
  lib.poster = await insertAsset(deps.db, ws, { title: "Launch poster", tags: ["launch"], boardIds: A, createdAt: ago(5), media: { width: 1000, height: 1000 } });
  lib.pdf = await insertAsset(deps.db, ws, { title: "Brand guide", mediaType: "application/pdf", fields: { client: "Acme Überseeverlag" }, boardIds: B, size: 6_000_000, createdAt: ago(60) });
});

const search = (query: string, t = token) => call(searchRoute.GET, { path: `/v1/${ws.slug}/search?${query}`, token: t, params: { slug: ws.slug } });
const ai = (query: string, t = token) => call(aiRoute.GET, { path: `/v1/${ws.slug}/ai_search?query=${encodeURIComponent(query)}`, token: t, params: { slug: ws.slug } });
const tokens = (res: { body: { data: { token: string }[] } }) => res.body.data.map((a) => a.token);

describe("search", () => {
  it("matches prefixes and ranks a title hit above a description hit", async () => {
    const res = await search("query=harb");
    expect(tokens(res)).toEqual([lib.harbourTitle.token, lib.harbourDesc.token]);
    expect(res.body.data[0].score).toBeGreaterThan(res.body.data[1].score);
  });

  it("finds tags and custom field values, any script", async () => {
    expect(tokens(await search("query=summer"))).toEqual([lib.portraitRed.token]);
    expect(tokens(await search("query=%C3%BCbersee"))).toEqual([lib.pdf.token]);
  });

  it("filters by media_type, tags and board_token", async () => {
    expect(tokens(await search("query=launch&media_type=video"))).toEqual([lib.longVideo.token]);
    expect(tokens(await search("query=launch&media_type=video/mp4"))).toEqual([lib.longVideo.token]);
    expect(tokens(await search(`query=launch&board_token=${boardB.token}`))).toEqual([lib.longVideo.token]);
    expect(tokens(await search("query=team&tags=team,summer"))).toEqual([lib.portraitRed.token]);
    expect(tokens(await search("query=team&tags=team,winter"))).toEqual([]);
  });

  it("validates its query", async () => {
    expectValidation(await search("query="), "query");
    expectValidation(await search(""), "query");
    expectValidation(await search("query=x&media_type=not a type"), "media_type");
    expectError(await search("query=x&board_token=nosuch"), 404, "board_not_found");
  });
});

describe("ai_search", () => {
  it.each([
    ["portrait photos from last week", ["portraitRed", "harbourDesc"]],
    ["videos longer than a minute", ["longVideo"]],
    ["vertical clips", ["shortVideo"]],
    ["red pictures", ["portraitRed"]],
    ["landscape photos that are not blue", []],
    ["pdfs larger than 5 mb", ["pdf"]],
    ["harbour photos", ["harbourTitle", "harbourDesc"]],
    ["everything but not videos from the last 10 days", ["portraitRed", "harbourDesc", "poster"]],
    ["square pictures", ["poster"]],
    ["videos tagged launch", ["longVideo"]],
  ])("%s", async (query, expected) => {
    const res = await ai(query);
    expect(res.status).toBe(200);
    expect(tokens(res).sort()).toEqual(expected.map((k) => lib[k].token).sort());
    expect(res.body.explanation).toMatch(/^Looking for /);
  });

  it("explains what it read", async () => {
    const res = await ai("red portrait photos from last week");
    expect(res.body.explanation).toContain("image files");
    expect(res.body.explanation).toContain("portrait orientation");
    expect(res.body.explanation).toContain("mostly red");
    expect(res.body.interpretation).toMatchObject({ kinds: ["image"], colors: ["red"], orientation: "portrait" });
  });
});

describe("the seven reads × principals", () => {
  const routes = () => [
    { name: "search", run: (t: string) => search("query=harbour", t), inA: true },
    { name: "ai_search", run: (t: string) => ai("harbour", t), inA: true },
  ];

  it("a board token sees only its subtree; a sibling's token and another workspace's are refused", async () => {
    const inA = await newBoardToken(deps.db, ws, boardA.token);
    const inB = await newBoardToken(deps.db, ws, boardB.token);
    const expired = await newBoardToken(deps.db, ws, boardA.token, { now: new Date(Date.now() - 2 * 3600e3), expiresIn: 60 });
    const other = await newWorkspace(deps.db);
    const otherBoard = await newBoard(deps.db, other);
    const foreign = await newBoardToken(deps.db, other, otherBoard.token);
    for (const r of routes()) {
      expect(tokens(await r.run(inA)).sort(), r.name).toEqual([lib.harbourTitle.token, lib.harbourDesc.token].sort());
      expect(tokens(await r.run(inB)), r.name).toEqual([]);
      expectError(await r.run(expired), 401, "unauthenticated");
      expectError(await r.run(foreign), 404, "workspace_not_found");
    }
    expectError(await search(`query=harbour&board_token=${boardA.token}`, inB), 404, "board_not_found");
  });
});
