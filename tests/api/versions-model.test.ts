import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import type { Board, Workspace } from "../../lib/db/schema";
import { useTestDeps } from "../helpers/deps";
import { md5hex, newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { patch, revert, versions, writeBytes } from "../helpers/versions";

/**
 * Random sequences of uploads, metadata edits, checkpoints, reverts and comment edits, checked
 * after every step against a small reference model of the interface's state table.
 */
type Content = { md5: string; title: string };
type Model = { head: Content; H: number; stored: Map<number, Content & { comment: string | null }>; revertedFrom: number | null };

type Op =
  | { kind: "upload"; comment: string }
  | { kind: "title"; title: string; comment: string }
  | { kind: "checkpoint"; comment: string }
  | { kind: "revert"; pick: number; comment: string }
  | { kind: "comment"; pick: number; comment: string | null };

const comment = fc.constantFrom("", "note", "another note", "  ");
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("upload" as const), comment }),
  fc.record({ kind: fc.constant("title" as const), title: fc.constantFrom("A", "B", "C"), comment }),
  fc.record({ kind: fc.constant("checkpoint" as const), comment }),
  fc.record({ kind: fc.constant("revert" as const), pick: fc.nat(20), comment }),
  fc.record({ kind: fc.constant("comment" as const), pick: fc.nat(20), comment: fc.option(comment, { nil: null }) }),
);

const nonEmpty = (c: string) => (c.trim() === "" ? null : c);

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

async function check(model: Model, assetToken: string) {
  const list = (await versions(ws, token, assetToken)).body;
  expect(list.head_version_number).toBe(model.H);
  expect(list.data.map((v: { version_number: number }) => v.version_number)).toEqual([...model.stored.keys()].sort((a, b) => b - a));
  for (const v of list.data as { version_number: number; md5: string; title: string; comment: string | null }[]) {
    const m = model.stored.get(v.version_number)!;
    expect({ n: v.version_number, md5: v.md5, title: v.title, comment: v.comment }).toEqual({ n: v.version_number, md5: m.md5, title: m.title, comment: m.comment });
  }
}

it("matches the reference model after every step", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
      const bytes = await randomPng();
      const { asset } = await uploadAsset(ws, token, deps.store.s3, bytes, { title: "A", collection_token: board.token });
      const model: Model = { head: { md5: md5hex(bytes), title: "A" }, H: 1, stored: new Map(), revertedFrom: null };
      const snapshot = (c: string | null) => {
        model.stored.set(model.H, { ...model.head, comment: c });
        model.H += 1;
      };
      for (const o of ops) {
        if (o.kind === "upload") {
          const next = await randomPng();
          const res = await writeBytes(ws, token, deps.store.s3, asset.token, next, { comment: o.comment });
          expect(res.status).toBe(200);
          snapshot(nonEmpty(o.comment));
          model.head = { ...model.head, md5: md5hex(next) };
          model.revertedFrom = null;
        } else if (o.kind === "title" || o.kind === "checkpoint") {
          const title = o.kind === "title" ? o.title : undefined;
          const res = await patch(ws, token, asset.token, { create_version: true, ...(title ? { title } : {}), comment: o.comment });
          expect(res.status).toBe(200);
          const changes = title !== undefined && title !== model.head.title;
          if (changes || nonEmpty(o.comment) !== null) {
            snapshot(nonEmpty(o.comment));
            if (title !== undefined) model.head = { ...model.head, title };
            model.revertedFrom = null;
          }
        } else if (o.kind === "revert") {
          const n = (o.pick % (model.H + 1)) + 1; // 1..H+1: stored versions, the live head, one above it
          const res = await revert(ws, token, asset.token, { version_number: n, comment: o.comment });
          if (n > model.H) {
            expect(res.status).toBe(404);
          } else {
            expect(res.status).toBe(200);
            if (n !== model.H && model.revertedFrom !== n) {
              const target = model.stored.get(n)!;
              snapshot(nonEmpty(o.comment));
              model.head = { md5: target.md5, title: target.title };
              model.revertedFrom = n;
            }
          }
        } else {
          const n = (o.pick % (model.H + 1)) + 1;
          const res = await patch(ws, token, asset.token, { version_number: n, ...(o.comment === null ? {} : { comment: o.comment }) });
          if (n >= model.H) expect(res.status).toBe(404);
          else {
            expect(res.status).toBe(200);
            if (o.comment !== null) model.stored.get(n)!.comment = o.comment === "" ? null : o.comment;
          }
        }
        expect((await versions(ws, token, asset.token)).body.head_version_number).toBe(model.H);
        await check(model, asset.token);
      }
    }),
    { numRuns: 20 },
  );
}, 240_000);
