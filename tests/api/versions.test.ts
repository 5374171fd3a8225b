import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { assets, boards, type Board, type Workspace } from "../../lib/db/schema";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { md5hex, newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { patch, revert, versions, writeBytes } from "../helpers/versions";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
const day = 86_400_000;

type Ctx = { ws: Workspace; token: string; board: Board };
async function workspace(plan: "team" | "free" | "creative" | "pro", trialOf?: "team"): Promise<Ctx> {
  const ws = await newWorkspace(deps.db, { plan, trialOf });
  return { ws, token: await newApiToken(deps.db, ws), board: await newBoard(deps.db, ws) };
}
async function newAsset(c: Ctx, onBoard = true) {
  const bytes = await randomPng();
  const { asset } = await uploadAsset(c.ws, c.token, deps.store.s3, bytes, onBoard ? { collection_token: c.board.token } : {});
  return { asset, bytes };
}
const head = async (c: Ctx, token: string) => (await versions(c.ws, c.token, token)).body;

let team: Ctx;
beforeAll(async () => {
  deps = await useTestDeps();
  team = await workspace("team");
});

describe("the interface's head and version counter table", () => {
  it("never versioned: no stored versions, head 1", async () => {
    const { asset } = await newAsset(team);
    expect(await head(team, asset.token)).toEqual({ data: [], head_version_number: 1, pagy: { current_page: 1, page_items: 0, total_pages: 1, total_count: 0 } });
  });

  it("create_version + signed_storage_id: previous state snapshotted, new bytes become the head (H+1)", async () => {
    const { asset, bytes } = await newAsset(team);
    deps.jobs.clear();
    const next = await randomPng();
    const res = await writeBytes(team.ws, team.token, deps.store.s3, asset.token, next, { comment: "before the retouch" });
    expect(res.status).toBe(200);
    expect(res.body.head_version_number).toBe(2);
    expect(res.body.data).toMatchObject({ md5: md5hex(next), head_version_number: 2, token: asset.token, boards: [team.board.token] });
    const list = await head(team, asset.token);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ version_number: 1, source: "UPLOAD", comment: "before the retouch", md5: md5hex(bytes), size: bytes.length, media_type: "image/png", revertable: true, primary_storage_id: asset.primary_storage_id });
    // One of each; the relay hands a write's events on in no promised order.
    expect(deps.jobs.sent.map((e) => e.name).sort()).toEqual(["asset/changed", "asset/processing.requested"]);
    expect((deps.jobs.sent.find((e) => e.name === "asset/changed")!.data as { changes: Record<string, unknown> }).changes).toMatchObject({ md5: { old: md5hex(bytes), new: md5hex(next) } });
  });

  it("create_version without bytes: a metadata change or a non-empty comment checkpoints (H+1)", async () => {
    const { asset } = await newAsset(team);
    const renamed = await patch(team.ws, team.token, asset.token, { create_version: true, title: "New title" });
    expect(renamed.body).toMatchObject({ head_version_number: 2, data: { title: "New title" } });
    const noted = await patch(team.ws, team.token, asset.token, { create_version: true, comment: "checkpoint" });
    expect(noted.body.head_version_number).toBe(3);
    const list = (await head(team, asset.token)).data;
    expect(list.map((v: { version_number: number; source: string; title: string; comment: string | null }) => [v.version_number, v.source, v.title, v.comment])).toEqual([
      [2, "EDIT", "New title", "checkpoint"],
      [1, "UPLOAD", asset.title, null],
    ]);
  });

  it("create_version without bytes, nothing changes and no non-empty comment: 200, nothing written", async () => {
    const { asset } = await newAsset(team);
    deps.jobs.clear();
    for (const body of [{ create_version: true }, { create_version: true, comment: "" }, { create_version: true, comment: "   " }, { create_version: true, title: asset.title }]) {
      const res = await patch(team.ws, team.token, asset.token, body);
      expect(res.status).toBe(200);
      expect(res.body.head_version_number).toBe(1);
    }
    expect((await head(team, asset.token)).data).toEqual([]);
    expect(deps.jobs.sent).toEqual([]);
  });

  it("revert to N: head snapshotted with the comment, bytes become N's, H+1; reverting again is a no-op", async () => {
    const { asset, bytes } = await newAsset(team);
    await writeBytes(team.ws, team.token, deps.store.s3, asset.token, await randomPng());
    const res = await revert(team.ws, team.token, asset.token, { version_number: 1, comment: "undo the retouch" });
    expect(res.status).toBe(200);
    expect(res.body.head_version_number).toBe(3);
    expect(res.body.data.md5).toBe(md5hex(bytes));
    const list = (await head(team, asset.token)).data;
    expect(list[0]).toMatchObject({ version_number: 2, source: "UPLOAD", comment: "undo the retouch" });
    const again = await revert(team.ws, team.token, asset.token, { version_number: 1 });
    expect(again.status).toBe(200);
    expect(again.body.head_version_number).toBe(3);
    const live = await revert(team.ws, team.token, asset.token, { version_number: 3 });
    expect(live.body.head_version_number).toBe(3);
    await patch(team.ws, team.token, asset.token, { create_version: true, comment: "after revert" });
    expect((await head(team, asset.token)).data[0]).toMatchObject({ version_number: 3, source: "REVERT", md5: md5hex(bytes) });
  });

  it("comment edit via version_number: H unchanged; \"\" clears to null; omitted changes nothing", async () => {
    const { asset } = await newAsset(team);
    await patch(team.ws, team.token, asset.token, { create_version: true, comment: "first" });
    const edit = await patch(team.ws, team.token, asset.token, { version_number: 1, comment: "edited" });
    expect(edit.body.head_version_number).toBe(2);
    expect((await head(team, asset.token)).data[0].comment).toBe("edited");
    await patch(team.ws, team.token, asset.token, { version_number: 1 });
    expect((await head(team, asset.token)).data[0].comment).toBe("edited");
    await patch(team.ws, team.token, asset.token, { version_number: 1, comment: "" });
    expect((await head(team, asset.token)).data[0].comment).toBeNull();
    expectError(await patch(team.ws, team.token, asset.token, { version_number: 2, comment: "x" }), 404, "version_not_found");
  });
});

describe("listing", () => {
  it("pages newest first by number ranges, with pagy totals; validates paging", async () => {
    const { asset } = await newAsset(team);
    for (let i = 1; i <= 5; i++) await patch(team.ws, team.token, asset.token, { create_version: true, comment: `c${i}` });
    const pages = await Promise.all([1, 2, 3, 4].map((p) => versions(team.ws, team.token, asset.token, `?per_page=2&page=${p}`)));
    expect(pages.map((r) => r.body.data.map((v: { version_number: number }) => v.version_number))).toEqual([[5, 4], [3, 2], [1], []]);
    expect(pages[0].body.pagy).toEqual({ current_page: 1, page_items: 2, total_pages: 3, total_count: 5 });
    expect(pages.every((r) => r.body.head_version_number === 6)).toBe(true);
    expect((await versions(team.ws, team.token, asset.token)).body.data).toHaveLength(5);
    for (const q of ["?per_page=0", "?per_page=101", "?page=0", "?page=x"]) expectValidation(await versions(team.ws, team.token, asset.token, q), q.slice(1).split("=")[0]);
  });
});

describe("errors", () => {
  it("version_not_found above the head; invalid_version_number for anything but a positive integer", async () => {
    const { asset } = await newAsset(team);
    await patch(team.ws, team.token, asset.token, { create_version: true, comment: "v1" });
    expectError(await revert(team.ws, team.token, asset.token, { version_number: 9 }), 404, "version_not_found");
    for (const version_number of ["1", 1.5, 0, -1, null, true]) {
      expectError(await revert(team.ws, team.token, asset.token, { version_number }), 422, "invalid_version_number");
      expectError(await patch(team.ws, team.token, asset.token, { version_number, comment: "x" }), 422, "invalid_version_number");
    }
    expectError(await revert(team.ws, team.token, asset.token, {}), 422, "invalid_version_number");
  });

  it("creative: 403 versioning_not_enabled on every version write; plain metadata still works", async () => {
    const c = await workspace("creative");
    const { asset } = await newAsset(c);
    expectError(await writeBytes(c.ws, c.token, deps.store.s3, asset.token, await randomPng()), 403, "versioning_not_enabled");
    expectError(await patch(c.ws, c.token, asset.token, { create_version: true, title: "x" }), 403, "versioning_not_enabled");
    expectError(await patch(c.ws, c.token, asset.token, { version_number: 1, comment: "x" }), 403, "versioning_not_enabled");
    expectError(await revert(c.ws, c.token, asset.token, { version_number: 1 }), 403, "versioning_not_enabled");
    expect((await patch(c.ws, c.token, asset.token, { title: "Plain" })).body).toMatchObject({ data: { title: "Plain" }, head_version_number: 1 });
  });

  it("version_write_forbidden off an active board", async () => {
    const c = await workspace("team");
    const { asset: loose } = await newAsset(c, false);
    expectError(await patch(c.ws, c.token, loose.token, { create_version: true, title: "x" }), 403, "version_write_forbidden");
    const { asset } = await newAsset(c);
    for (const state of ["trashed", "archived", "read_only"] as const) {
      await deps.db.update(boards).set({ state }).where(eq(boards.id, c.board.id));
      expectError(await patch(c.ws, c.token, asset.token, { create_version: true, title: `x-${state}` }), 403, "version_write_forbidden");
      expectError(await revert(c.ws, c.token, asset.token, { version_number: 1 }), 403, "version_write_forbidden");
    }
    await deps.db.update(boards).set({ state: "active" }).where(eq(boards.id, c.board.id));
    expect((await patch(c.ws, c.token, asset.token, { create_version: true, title: "ok" })).status).toBe(200);
  });

  it("revert_window_exceeded past 7 days on free (not at 6d23h); trials and team unlimited", async () => {
    for (const [plan, trial, gated] of [["free", undefined, true], ["pro", undefined, true], ["free", "team", false], ["team", undefined, false]] as const) {
      const c = await workspace(plan, trial);
      const { asset } = await newAsset(c);
      await patch(c.ws, c.token, asset.token, { create_version: true, title: "two" });
      await patch(c.ws, c.token, asset.token, { create_version: true, title: "three" });
      deps.time.advance(6 * day + 23 * 3600e3);
      try {
        expect((await revert(c.ws, c.token, asset.token, { version_number: 2 })).status).toBe(200);
        deps.time.advance(3600e3 + 1000);
        const res = await revert(c.ws, c.token, asset.token, { version_number: 1 });
        if (gated) {
          expect(expectError(res, 403, "revert_window_exceeded").revert_window_days).toBe(7);
          const old = (await head(c, asset.token)).data.find((v: { version_number: number }) => v.version_number === 1);
          expect(old).toMatchObject({ revertable: false, primary_storage_id: null });
        } else expect(res.status).toBe(200);
      } finally {
        deps.time.reset();
      }
    }
  });

  it("version_blob_missing when the stored file is gone", async () => {
    const { asset } = await newAsset(team);
    await writeBytes(team.ws, team.token, deps.store.s3, asset.token, await randomPng());
    await deps.store.s3.remove(asset.primary_storage_id);
    expectError(await revert(team.ws, team.token, asset.token, { version_number: 1 }), 422, "version_blob_missing");
  });

  it("signed_storage_id with create_version false is refused; a retried write is a no-op; a used id is refused elsewhere", async () => {
    const { asset } = await newAsset(team);
    const { asset: other } = await newAsset(team);
    const { prepare } = await import("../helpers/uploads");
    const bytes = await randomPng();
    const prep = (await prepare(team.ws, team.token, { media_type: "image/png", size: bytes.length })).body.data;
    await deps.store.s3.send(prep, bytes);
    const sid = prep.signed_storage_id;
    expectValidation(await patch(team.ws, team.token, asset.token, { create_version: false, signed_storage_id: sid }), "create_version");
    const first = await patch(team.ws, team.token, asset.token, { create_version: true, signed_storage_id: sid });
    expect(first.body.head_version_number).toBe(2);
    const retry = await patch(team.ws, team.token, asset.token, { create_version: true, signed_storage_id: sid });
    expect(retry.status).toBe(200);
    expect(retry.body.head_version_number).toBe(2);
    expectError(await patch(team.ws, team.token, other.token, { create_version: true, signed_storage_id: sid }), 422, "invalid_signed_storage_id");
    const { complete } = await import("../helpers/uploads");
    expectError(await complete(team.ws, team.token, { signed_storage_id: sid }), 422, "invalid_signed_storage_id");
  });

  it("If-Match with a stale head_version_number → 412, nothing written", async () => {
    const { asset } = await newAsset(team);
    expectError(await patch(team.ws, team.token, asset.token, { create_version: true, title: "x" }, { "if-match": "5" }), 412, "precondition_failed");
    expect((await patch(team.ws, team.token, asset.token, { create_version: true, title: "x" }, { "if-match": "1" })).body.head_version_number).toBe(2);
  });
});

describe("what belonged to the replaced bytes", () => {
  it("a version write and a revert to other bytes clear the encode's progress, stream and storyboard with the bytes", async () => {
    const { asset } = await newAsset(team);
    const encoding = { encodeStatus: "processing" as const, encodeProgress: { fraction: 0.4, rung: "720p", etaSeconds: 12 }, streamKey: "enc/run-1/master.m3u8", storyboardKey: "enc/run-1/storyboard.vtt" };
    const row = async () => (await deps.db.select().from(assets).where(eq(assets.token, asset.token)))[0];
    await deps.db.update(assets).set(encoding).where(eq(assets.token, asset.token));
    expect((await writeBytes(team.ws, team.token, deps.store.s3, asset.token, await randomPng())).status).toBe(200);
    expect(await row()).toMatchObject({ encodeStatus: "none", encodeProgress: null, streamKey: null, storyboardKey: null });

    await deps.db.update(assets).set(encoding).where(eq(assets.token, asset.token));
    expect((await revert(team.ws, team.token, asset.token, { version_number: 1 })).status).toBe(200);
    expect(await row()).toMatchObject({ encodeStatus: "none", encodeProgress: null, streamKey: null, storyboardKey: null });
  });
});
