import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDeps } from "../../../tests/helpers/deps";
import { newWorkspace } from "../../../tests/helpers/factories";
import { StoreRoutes } from "../../../tests/helpers/store-routes";
import { TEST_ORIGIN, keyOf } from "../../../tests/helpers/test-storage";
import type { Workspace } from "../../db/schema";
import { layout } from "../../objectstore/disk/layout";
import { md5Hex, storedBytes, tempDir } from "../../objectstore/testing/fixtures";
import { storageFor } from "../../storage";
import { PART_SIZE } from "../../storage/limits";
import type { StorageDriver } from "../../storage/types";
import { prepareUpload } from "../../uploads/prepare-upload";
import type { PreparedUpload } from "../types";
import { GCS_CHUNK_BYTES, querySession, sendResumable, type Transport } from "./gcs-resumable";
import { listedParts, partsToSend } from "./resume";
import { easelSignRequest } from "./s3-sign-request";
import { TicketStore, type KeyValueStorage } from "./ticket-store";
import { UploadTickets } from "./tickets";

/*
 * The resume decisions against the real embedded store: Easel prepares the upload as the API
 * does, some bytes arrive, the page "reloads" (a fresh UploadTickets reading the tab's saved
 * reservation), and what the uploader then asks storage decides what it sends.
 */

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let routes: StoreRoutes;
const drivers: Partial<Record<"s3" | "gcs", StorageDriver>> = {};
const workspaces: Partial<Record<"s3" | "gcs", Workspace>> = {};

beforeAll(async () => {
  deps = await useTestDeps();
  routes = new StoreRoutes(layout(tempDir("resume-store")), deps.db, deps.clock);
  routes.listenOn(TEST_ORIGIN);
  for (const kind of ["s3", "gcs"] as const) {
    drivers[kind] = storageFor(kind, { baseUrl: TEST_ORIGIN, db: deps.db, clock: deps.clock, embeddedLayout: routes.lay });
    workspaces[kind] = await newWorkspace(deps.db, { storage: kind });
  }
});

async function prepared(kind: "s3" | "gcs", size: number): Promise<PreparedUpload> {
  const ws = workspaces[kind]!;
  return prepareUpload(deps, drivers[kind]!, { workspace: ws, asset: { title: "clip.bin", mediaType: "application/octet-stream", size } });
}

/** A reloaded page's reservations: a new UploadTickets over what the tab saved before the reload. */
function reloadedTickets(tab: KeyValueStorage, fileId: string, size: number, ticket: PreparedUpload, gcsSession: string | null = null) {
  new TicketStore("easel:ws:board:b", tab).save(fileId, { size, ticket, gcsSession });
  return new UploadTickets("ws", { kind: "asset" }, new TicketStore("easel:ws:board:b", tab));
}

function mapStorage(): KeyValueStorage {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
}

const put = (url: string, body: Buffer, headers: Record<string, string> = {}) => routes.fetch(url, { method: "PUT", body: new Uint8Array(body), headers });

describe("s3: a resumed multipart upload sends only the parts storage lacks", () => {
  it("lists the stored parts through the presigned ListParts URL; a part of the wrong size is sent again", async () => {
    const size = 3 * PART_SIZE + 1000;
    const bytes = crypto.randomBytes(size);
    const slice = (n: number) => bytes.subarray((n - 1) * PART_SIZE, Math.min(size, n * PART_SIZE));
    const ticket = await prepared("s3", size);
    expect(ticket.list_parts_url).toMatch(/uploadId=/);
    expect(ticket.part_urls).toHaveLength(4);

    // Before the reload: parts 1 and 3 arrived whole; part 4 arrived with the wrong bytes count.
    for (const n of [1, 3]) expect((await put(ticket.part_urls![n - 1], slice(n))).status).toBe(200);
    expect((await put(ticket.part_urls![3], slice(4).subarray(0, 10))).status).toBe(200);

    const fileId = "uppy-clip/bin-1";
    const tickets = reloadedTickets(mapStorage(), fileId, size, ticket);
    const fetchText = async (url: string) => {
      const res = await routes.fetch(url);
      return { status: res.status, text: await res.text() };
    };
    const sign = easelSignRequest(tickets, (id) => (id === fileId ? { id, size } : undefined), fetchText);
    const listing = await sign({ method: "GET", key: fileId, uploadId: ticket.multipart_upload_id! });
    const answer = decodeURIComponent(listing.url.slice(listing.url.indexOf(",") + 1));
    const kept = listedParts(answer);
    expect(kept.map((p) => p.partNumber)).toEqual([1, 3]);
    expect(kept[0].etag).toBe(md5Hex(slice(1)));
    expect(partsToSend(size, kept)).toEqual([2, 4]);

    // Sending just those completes the upload with the file's exact bytes.
    for (const n of partsToSend(size, kept)) {
      const url = (await sign({ method: "PUT", key: fileId, uploadId: ticket.multipart_upload_id!, partNumber: n })).url;
      expect((await put(url, slice(n))).status).toBe(200);
    }
    const key = keyOf(ticket.upload_url);
    await drivers.s3!.completeMultipart({ key, uploadId: ticket.multipart_upload_id!, expectedParts: 4 });
    expect(md5Hex(await storedBytes(routes.lay, key))).toBe(md5Hex(bytes));
  });

  it("a small (single PUT) upload has no listing: it is sent again whole", async () => {
    const ticket = await prepared("s3", 1000);
    expect(ticket.multipart_upload_id).toBeNull();
    expect(ticket.list_parts_url).toBeNull();
  });
});

describe("gcs: a resumed session goes on from the byte storage reports", () => {
  const viaStore =
    (seen: string[]): Transport =>
    async (method, url, opts) => {
      seen.push(`${method} ${opts.headers?.["Content-Range"] ?? ""}`.trim());
      const body = opts.body ? Buffer.from(await opts.body.arrayBuffer()) : undefined;
      const res = await routes.fetch(url, { method, headers: opts.headers, body: body ? new Uint8Array(body) : undefined });
      return { status: res.status, header: (n) => res.headers.get(n) };
    };

  it("asks the saved session (bytes */size), then sends from the first byte it lacks", async () => {
    const size = 2 * GCS_CHUNK_BYTES + 5000;
    const bytes = crypto.randomBytes(size);
    const ticket = await prepared("gcs", size);
    const opened = await routes.fetch(ticket.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(opened.status).toBe(201);
    const session = opened.headers.get("location")!;
    // Before the reload: the first chunk arrived.
    expect((await put(session, bytes.subarray(0, GCS_CHUNK_BYTES), { "Content-Range": `bytes 0-${GCS_CHUNK_BYTES - 1}/${size}` })).status).toBe(308);

    const tickets = reloadedTickets(mapStorage(), "uppy-f", size, ticket, session);
    expect(tickets.gcsSession("uppy-f")).toBe(session);
    const seen: string[] = [];
    const signal = new AbortController().signal;
    const status = await querySession(session, size, signal, viaStore(seen));
    expect(status).toEqual({ state: "partial", offset: GCS_CHUNK_BYTES });
    if (status.state !== "partial") return;
    const progress: number[] = [];
    await sendResumable(session, new Blob([new Uint8Array(bytes)]), signal, (b) => progress.push(b), { from: status.offset, transport: viaStore(seen) });

    // No byte of the first chunk went up again.
    expect(seen).toEqual([
      `PUT bytes */${size}`,
      `PUT bytes ${GCS_CHUNK_BYTES}-${2 * GCS_CHUNK_BYTES - 1}/${size}`,
      `PUT bytes ${2 * GCS_CHUNK_BYTES}-${size - 1}/${size}`,
    ]);
    expect(progress.at(-1)).toBe(size);
    expect(md5Hex(await storedBytes(routes.lay, keyOf(ticket.upload_url)))).toBe(md5Hex(bytes));
  });

  it("a finished session says so (nothing is sent); an unknown one is gone", async () => {
    const size = 4000;
    const bytes = crypto.randomBytes(size);
    const ticket = await prepared("gcs", size);
    const session = (await routes.fetch(ticket.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } })).headers.get("location")!;
    expect((await put(session, bytes)).status).toBe(200);
    const signal = new AbortController().signal;
    expect(await querySession(session, size, signal, viaStore([]))).toEqual({ state: "complete" });

    const unknown = new URL(session);
    unknown.searchParams.set("upload_id", "no-such-session");
    expect(await querySession(unknown.toString(), size, signal, viaStore([]))).toEqual({ state: "gone" });
  });
});
