import { describe, expect, it } from "vitest";
import { PART_SIZE } from "../../storage/limits";
import type { PreparedUpload } from "../types";
import {
  TICKET_MARGIN_MS,
  committedBytes,
  expectedPartSize,
  listPartsAnswer,
  listedParts,
  partsToKeep,
  partsToSend,
  restoreDecision,
  sessionStatusOf,
} from "./resume";
import { TicketStore, type KeyValueStorage, type StoredTicket } from "./ticket-store";

const now = new Date("2026-11-27T10:00:00Z");
const ticket = (expiresAt: Date, multipart: string | null = "up-1"): PreparedUpload => ({
  storage_provider: "s3",
  signed_storage_id: "sid",
  upload_url: "http://s/p1",
  multipart_upload_id: multipart,
  part_size: multipart ? PART_SIZE : null,
  part_urls: multipart ? ["http://s/p1", "http://s/p2"] : null,
  list_parts_url: multipart ? "http://s/list" : null,
  expires_at: expiresAt.toISOString(),
});
const inHours = (h: number) => new Date(now.getTime() + h * 3600_000);
const size = PART_SIZE + 100;
const saved = (t = ticket(inHours(20)), s = size): StoredTicket => ({ size: s, ticket: t, gcsSession: null });

describe("which s3 parts a resumed upload sends", () => {
  const part = (partNumber: number, bytes: number) => `<Part><PartNumber>${partNumber}</PartNumber><ETag>"e${partNumber}"</ETag><Size>${bytes}</Size></Part>`;

  it("reads a ListParts answer, one part or many, and leaves out entries it cannot read", () => {
    expect(listedParts(`<?xml version="1.0"?><ListPartsResult xmlns="x">${part(2, 5)}</ListPartsResult>`)).toEqual([{ partNumber: 2, etag: "e2", size: 5 }]);
    expect(listedParts(`<ListPartsResult>${part(1, 1)}${part(3, 3)}<Part><PartNumber>x</PartNumber><ETag>e</ETag><Size>1</Size></Part><Part><PartNumber>4</PartNumber><Size>1</Size></Part></ListPartsResult>`).map((p) => p.partNumber)).toEqual([1, 3]);
    expect(listedParts("<ListPartsResult></ListPartsResult>")).toEqual([]);
    expect(listedParts("not xml at all")).toEqual([]);
  });

  it("keeps whole parts only: a short part or one beyond the file is sent again", () => {
    const big = 3 * PART_SIZE + 10;
    expect([1, 2, 3, 4].map((n) => expectedPartSize(big, n))).toEqual([PART_SIZE, PART_SIZE, PART_SIZE, 10]);
    const listed = [
      { partNumber: 1, etag: "a", size: PART_SIZE },
      { partNumber: 2, etag: "b", size: PART_SIZE - 1 },
      { partNumber: 4, etag: "d", size: 10 },
      { partNumber: 5, etag: "e", size: 10 },
    ];
    const kept = partsToKeep(big, listed);
    expect(kept.map((p) => p.partNumber)).toEqual([1, 4]);
    expect(partsToSend(big, kept)).toEqual([2, 3]);
    expect(partsToSend(big, [])).toEqual([1, 2, 3, 4]);
    expect(partsToSend(big, partsToKeep(big, [1, 2, 3, 4].map((n) => ({ partNumber: n, etag: "x", size: expectedPartSize(big, n) }))))).toEqual([]);
  });

  it("answers Uppy with the kept parts, escaped so its reader gets them back", () => {
    const xml = listPartsAnswer([{ partNumber: 1, etag: 'a"<&', size: 3 }]);
    expect(xml).toBe("<ListPartsResult><Part><PartNumber>1</PartNumber><ETag>a&quot;&lt;&amp;</ETag><Size>3</Size></Part></ListPartsResult>");
    expect(listedParts(xml)).toEqual([{ partNumber: 1, etag: 'a"<&', size: 3 }]);
  });
});

describe("where a resumed gcs session goes on", () => {
  it.each([
    ["bytes=0-8388607", 8 * 1024 * 1024],
    ["bytes=0-0", 1],
    [null, 0],
    ["bytes=5-9", 0],
    ["garbage", 0],
  ])("Range %s → %i bytes stored", (range, bytes) => {
    expect(committedBytes(range)).toBe(bytes);
  });

  it("200/201 is done, 308 is the offset, 404/410 is a session storage forgot; anything else is an error", () => {
    expect(sessionStatusOf(200, null)).toEqual({ state: "complete" });
    expect(sessionStatusOf(201, null)).toEqual({ state: "complete" });
    expect(sessionStatusOf(308, "bytes=0-262143")).toEqual({ state: "partial", offset: 262144 });
    expect(sessionStatusOf(308, null)).toEqual({ state: "partial", offset: 0 });
    expect(sessionStatusOf(404, null)).toEqual({ state: "gone" });
    expect(sessionStatusOf(410, null)).toEqual({ state: "gone" });
    expect(() => sessionStatusOf(503, null)).toThrow(/HTTP 503/);
  });
});

describe("what a restored file does", () => {
  const file = { size, hasData: true, uploadComplete: false, s3UploadId: "up-1" };

  it("resumes with a saved, unexpired reservation of the same size and multipart upload", () => {
    expect(restoreDecision(file, saved(), now)).toEqual({ action: "resume" });
    expect(restoreDecision({ ...file, s3UploadId: null }, saved(ticket(inHours(20), null)), now)).toEqual({ action: "resume" });
  });

  it("starts over, saying why, without a reservation, with an expired one, or with one of another file", () => {
    expect(restoreDecision(file, null, now)).toEqual({ action: "restart", reason: expect.stringMatching(/not kept/) });
    expect(restoreDecision(file, saved(ticket(inHours(-1))), now)).toEqual({ action: "restart", reason: expect.stringMatching(/expired/) });
    // Expiring within the margin is as good as expired: the rest of the upload would not make it.
    const almost = new Date(now.getTime() + TICKET_MARGIN_MS - 1000);
    expect(restoreDecision(file, saved(ticket(almost)), now).action).toBe("restart");
    expect(restoreDecision(file, saved(ticket(inHours(20)), size + 1), now)).toEqual({ action: "restart", reason: expect.stringMatching(/not the one/) });
    expect(restoreDecision({ ...file, s3UploadId: "up-2" }, saved(), now)).toEqual({ action: "restart", reason: expect.stringMatching(/multipart/) });
  });

  it("drops a file whose bytes went up (or were not kept) when its reservation is gone: there is nothing to send it with", () => {
    expect(restoreDecision({ ...file, uploadComplete: true, hasData: false }, null, now).action).toBe("drop");
    expect(restoreDecision({ ...file, hasData: false }, saved(ticket(inHours(-1))), now).action).toBe("drop");
  });
});

describe("the tab's saved reservations", () => {
  const memory = () => {
    const m = new Map<string, string>();
    const storage: KeyValueStorage = { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
    return { m, storage };
  };

  it("round-trip per namespace and file; removal forgets", () => {
    const { storage } = memory();
    const a = new TicketStore("easel:ws:board:a", storage);
    a.save("f1", saved());
    expect(a.load("f1")).toEqual(saved());
    expect(new TicketStore("easel:ws:board:b", storage).load("f1")).toBeNull();
    a.remove("f1");
    expect(a.load("f1")).toBeNull();
  });

  it("an unreadable or tampered record is dropped with a warning, never used", () => {
    const { m, storage } = memory();
    const warnings: string[] = [];
    const store = new TicketStore("ns", storage, (w) => warnings.push(w));
    m.set("easel-upload-ticket:ns:f1", "{not json");
    m.set("easel-upload-ticket:ns:f2", JSON.stringify({ ...saved(), ticket: { ...saved().ticket, upload_url: "javascript:alert(1)" } }));
    expect(store.load("f1")).toBeNull();
    expect(store.load("f2")).toBeNull();
    expect(warnings).toHaveLength(2);
    expect(m.size).toBe(0);
  });

  it("a storage that refuses (quota, privacy settings) costs only the resume, with a warning", () => {
    const warnings: string[] = [];
    const refusing: KeyValueStorage = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("quota");
      },
      removeItem: () => undefined,
    };
    const store = new TicketStore("ns", refusing, (w) => warnings.push(w));
    store.save("f1", saved());
    expect(store.load("f1")).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/quota/), expect.stringMatching(/denied/)]);
  });
});
