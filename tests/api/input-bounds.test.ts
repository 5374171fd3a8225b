import { beforeAll, describe, expect, it } from "vitest";
import * as tokensRoute from "../../app/api/admin/workspaces/[slug]/tokens/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import * as searchRoute from "../../app/v1/[slug]/search/route";
import type { Asset, Workspace } from "../../lib/db/schema";
import { BOUNDS, fieldBoundsProblem } from "../../lib/http/bounds";
import { MAX_JSON_VALUES } from "../../lib/http/json-values";
import { call, type Answer } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";
import { prepare } from "../helpers/uploads";
import { patch } from "../helpers/versions";

/**
 * Contract §13, "Metadata is bounded", and every other bound of docs/security.md ("Bounds on every
 * input"): a value at each bound is accepted, one past it answers 422 validation_failed naming the
 * field, and a refused write changes nothing (the asset as it was, no event sent).
 */

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let rw: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
});

const chars = (n: number, c = "x") => c.repeat(n);

/** `count` fields named f0, f1, … with one-character values. */
const manyFields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, "v"]));

/** Seven fields whose JSON object is exactly `bytes` long (UTF-8), each value under the value bound. */
function fieldsOfJsonBytes(bytes: number): Record<string, string> {
  const names = Array.from({ length: 7 }, (_, i) => `f${i}`);
  const overhead = 2 + names.reduce((sum, n) => sum + n.length + 2 + 1 + 2, 0) + (names.length - 1);
  const valueBytes = bytes - overhead;
  const each = Math.floor(valueBytes / names.length);
  const fields = Object.fromEntries(names.map((n) => [n, chars(each)]));
  fields[names.at(-1)!] = chars(valueBytes - each * (names.length - 1));
  expect(Buffer.byteLength(JSON.stringify(fields))).toBe(bytes);
  return fields;
}

type PatchCase = { name: string; field: string; atBound: Record<string, unknown>; pastBound: Record<string, unknown> };

const patchCases: PatchCase[] = [
  { name: "custom field count", field: "fields", atBound: { fields: manyFields(BOUNDS.fieldCount) }, pastBound: { fields: manyFields(BOUNDS.fieldCount + 1) } },
  { name: "custom field name length", field: "fields", atBound: { fields: { [chars(BOUNDS.fieldNameChars, "n")]: "v" } }, pastBound: { fields: { [chars(BOUNDS.fieldNameChars + 1, "n")]: "v" } } },
  { name: "empty custom field name", field: "fields", atBound: { fields: { n: "v" } }, pastBound: { fields: { "": "v" } } },
  { name: "custom field value length", field: "fields", atBound: { fields: { long: chars(BOUNDS.fieldValueChars) } }, pastBound: { fields: { long: chars(BOUNDS.fieldValueChars + 1) } } },
  { name: "custom field value that is not a string", field: "fields", atBound: { fields: { n: "1" } }, pastBound: { fields: { n: 1 } } },
  { name: "all custom fields' JSON", field: "fields", atBound: { fields: fieldsOfJsonBytes(BOUNDS.fieldsJsonBytes) }, pastBound: { fields: fieldsOfJsonBytes(BOUNDS.fieldsJsonBytes + 1) } },
  {
    name: "custom fields' JSON counted in UTF-8 bytes",
    field: "fields",
    // 7 fields of 3-byte characters: 65,536 bytes of JSON in far fewer characters
    atBound: { fields: fieldsWithWideCharacters(BOUNDS.fieldsJsonBytes) },
    pastBound: { fields: fieldsWithWideCharacters(BOUNDS.fieldsJsonBytes + 3) },
  },
  { name: "tag count", field: "tags", atBound: { tags: Array.from({ length: BOUNDS.tagCount }, (_, i) => `t${i}`) }, pastBound: { tags: Array.from({ length: BOUNDS.tagCount + 1 }, (_, i) => `t${i}`) } },
  { name: "tag length", field: "tags", atBound: { tags: [chars(BOUNDS.tagChars)] }, pastBound: { tags: [chars(BOUNDS.tagChars + 1)] } },
  { name: "title length", field: "title", atBound: { title: chars(BOUNDS.title) }, pastBound: { title: chars(BOUNDS.title + 1) } },
  { name: "description length", field: "description", atBound: { description: chars(BOUNDS.description) }, pastBound: { description: chars(BOUNDS.description + 1) } },
  { name: "text length", field: "text", atBound: { text: chars(BOUNDS.text) }, pastBound: { text: chars(BOUNDS.text + 1) } },
];

/** Seven fields of "€" (3 bytes in UTF-8) whose JSON is `bytes` long, give or take the last character's width. */
function fieldsWithWideCharacters(bytes: number): Record<string, string> {
  const names = Array.from({ length: 7 }, (_, i) => `f${i}`);
  const overhead = 2 + names.length * (2 + 2 + 1 + 2) + (names.length - 1);
  const valueChars = Math.floor((bytes - overhead) / 3);
  const each = Math.floor(valueChars / names.length);
  const fields = Object.fromEntries(names.map((n) => [n, chars(each, "€")]));
  const rest = bytes - overhead - each * 3 * (names.length - 1);
  fields[names.at(-1)!] = chars(Math.floor(rest / 3), "€") + chars(rest % 3, "x");
  expect(Buffer.byteLength(JSON.stringify(fields))).toBe(bytes);
  return fields;
}

const getAsset = (asset: Asset) => call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${asset.token}`, token: rw, params: { slug: ws.slug, token: asset.token } });

describe("PATCH /v1/:slug/assets/:token: each bound, at it and one past it", () => {
  it.each(patchCases)("$name: at the bound 200, past it 422 on $field with nothing changed", async ({ field, atBound, pastBound }) => {
    const asset = await insertAsset(deps.db, ws, { title: "Bounded", tags: ["kept"], fields: { kept: "yes" } });
    const before = await getAsset(asset);
    const eventsBefore = deps.jobs.sent.length;

    const refused = await patch(ws, rw, asset.token, pastBound);
    expectValidation(refused, field);
    if (field === "fields") expect(refused.body.errors[0].extensions.field).toBe("fields");
    expect((await getAsset(asset)).body).toEqual(before.body);
    expect(deps.jobs.sent.length).toBe(eventsBefore);

    const accepted = await patch(ws, rw, asset.token, atBound);
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(200);
    const [key] = Object.keys(atBound);
    expect(accepted.body.data[key]).toEqual(atBound[key]);
  });

  it("refuses 45,000 fields (about 800 KB) as over the count, naming fields", async () => {
    const asset = await insertAsset(deps.db, ws, { fields: { kept: "yes" } });
    const fields = Object.fromEntries(Array.from({ length: 45_000 }, (_, i) => [`k${i}`, `v${i}`]));
    expect(JSON.stringify(fields).length).toBeGreaterThan(750_000);
    const res = await patch(ws, rw, asset.token, { fields });
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: "validation_failed", field: "fields" } });
    expect(res.body.errors[0].message).toContain(`at most ${BOUNDS.fieldCount} custom fields`);
  });

  it("counts the fields' JSON bytes exactly as JSON.stringify writes them", () => {
    const fields = { "quote\"d": "tab\there", "é": "\u2028 line", plain: "x" };
    const exact = Buffer.byteLength(JSON.stringify(fields));
    expect(exact).toBeLessThan(BOUNDS.fieldsJsonBytes);
    // The problem message carries the computed size once the total is over.
    const over = { ...fields, big: chars(BOUNDS.fieldValueChars) };
    const many = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`b${i}`, chars(BOUNDS.fieldValueChars)]));
    const problem = fieldBoundsProblem({ ...over, ...many });
    expect(problem).toContain(`these are ${Buffer.byteLength(JSON.stringify({ ...over, ...many }))})`);
  });
});

describe("other routes' bounds", () => {
  it("upload_prepare: media_type of 255 characters accepted, 256 refused on media_type", async () => {
    const type = (n: number) => `image/${chars(n - "image/".length, "p")}`;
    const ok = await prepare(ws, rw, { media_type: type(BOUNDS.mediaType), size: 10 });
    expect(ok.status, ok.text).toBe(200);
    expectValidation(await prepare(ws, rw, { media_type: type(BOUNDS.mediaType + 1), size: 10 }), "media_type");
  });

  it("search: a query of 500 characters accepted, 501 refused on query; a media_type filter past 255 refused", async () => {
    const search = (q: string) => call(searchRoute.GET, { path: `/v1/${ws.slug}/search?${q}`, token: rw, params: { slug: ws.slug } });
    expect((await search(`query=${chars(BOUNDS.searchQuery)}`)).status).toBe(200);
    expectValidation(await search(`query=${chars(BOUNDS.searchQuery + 1)}`), "query");
    expect((await search(`query=a&media_type=${chars(BOUNDS.mediaType)}`)).status).toBe(200);
    expectValidation(await search(`query=a&media_type=${chars(BOUNDS.mediaType + 1)}`), "media_type");
  });

  it("lists: per_page 100 accepted, 101 refused; page 1,000,000 accepted, 1,000,001 refused", async () => {
    const list = (q: string) => call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards?${q}`, token: rw, params: { slug: ws.slug } });
    expect((await list(`per_page=${BOUNDS.perPage}`)).status).toBe(200);
    expectValidation(await list(`per_page=${BOUNDS.perPage + 1}`), "per_page");
    expect((await list(`page=${BOUNDS.page}`)).status).toBe(200);
    expectValidation(await list(`page=${BOUNDS.page + 1}`), "page");
  });

  it("any JSON body: 50,000 entries after each container's first accepted, one more refused on body before parsing, nothing made", async () => {
    // One comma between title and junk, then one per item after the first: `items` commas in all.
    const withItems = (items: number) => `{"board":{"title":"Counted","junk":[${Array(items).fill("0").join(",")}]}}`;
    const create = (body: string) => call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token: rw, body, headers: { "content-type": "application/json" }, params: { slug: ws.slug } });
    const count = async () => (await call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, token: rw, params: { slug: ws.slug } })).body.pagy.total_count;
    const before = await count();
    const refused = await create(withItems(MAX_JSON_VALUES));
    expectError(refused, 422, "validation_failed");
    expect(refused.body.errors[0].extensions.field).toBe("body");
    expect(await count()).toBe(before);
    expect((await create(withItems(MAX_JSON_VALUES - 1))).status).toBe(201);
  });

  it("Idempotency-Key: 255 characters accepted, 256 refused on Idempotency-Key and no board made", async () => {
    const create = (key: string) =>
      call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token: rw, headers: { "idempotency-key": key }, json: { board: { title: "Keyed" } }, params: { slug: ws.slug } });
    const count = async () => (await call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, token: rw, params: { slug: ws.slug } })).body.pagy.total_count;
    const before = await count();
    const refused = await create(chars(256, "k"));
    expectError(refused, 422, "validation_failed");
    expect(refused.body.errors[0].extensions.field).toBe("Idempotency-Key");
    expect(await count()).toBe(before);
    expect((await create(chars(255, "k"))).status).toBe(201);
  });

  it("an API token's scopes: each scope once (2) accepted, a longer list refused on scopes and no token made", async () => {
    const owner = await newUser(deps.db, { owner: true });
    const headers = await sessionHeaders(deps.db, owner);
    const create = (scopes: string[]) =>
      call(tokensRoute.POST, { method: "POST", path: `/api/admin/workspaces/${ws.slug}/tokens`, headers, json: { token: { name: "bounded", scopes } }, params: { slug: ws.slug } });
    const list = async () => (await call(tokensRoute.GET, { path: `/api/admin/workspaces/${ws.slug}/tokens`, headers, params: { slug: ws.slug } })).body;
    const before = await list();
    const refused: Answer = await create(["read", "write", "read"]);
    expectError(refused, 422, "validation_failed");
    expect(String(refused.body.errors[0].extensions.field)).toContain("scopes");
    expect(await list()).toEqual(before);
    expect((await create(["read", "write"])).status).toBe(201);
  });
});
