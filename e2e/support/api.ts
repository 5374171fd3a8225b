import fs from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";

/**
 * Test data through the public API with an API token, the way any client makes it; the UI is
 * then checked against it. Nothing here reaches into the database.
 */
type Json = Record<string, any>;

async function ok(res: APIResponse, what: string): Promise<Json> {
  const text = await res.text();
  expect(res.ok(), `${what}: HTTP ${res.status()} ${text.slice(0, 300)}`).toBeTruthy();
  return text ? (JSON.parse(text) as Json) : {};
}

const MEDIA: Record<string, string> = { ".png": "image/png", ".pdf": "application/pdf", ".mp4": "video/mp4", ".bin": "application/octet-stream" };

export function apiClient(request: APIRequestContext, slug: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const v1 = (p: string) => `/v1/${slug}${p}`;
  /** A read, sent again when the server closed a kept-alive connection just as it was reused (a race, not an answer). */
  const read = async (url: string): Promise<APIResponse> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request.get(url, { headers });
      } catch (err) {
        if (attempt >= 3 || !/ECONNRESET|socket hang up/.test(String(err))) throw err;
      }
    }
  };

  /** upload_prepare → bytes to storage (single PUT, parts, or a resumable session) → returns the prepare answer. */
  async function sendBytes(file: string, opts: { board?: string; mediaType?: string; title?: string }) {
    const bytes = fs.readFileSync(file);
    const mediaType = opts.mediaType ?? MEDIA[path.extname(file)] ?? "application/octet-stream";
    const prepared = (await ok(
      await request.post(v1("/assets/upload_prepare"), { headers, data: { asset: { title: opts.title ?? path.basename(file), media_type: mediaType, size: bytes.length, collection_token: opts.board } } }),
      "upload_prepare",
    )).data as Json;
    if (prepared.storage_provider === "gcs") {
      const start = await request.post(prepared.upload_url, { headers: { "x-goog-resumable": "start", "content-type": mediaType }, maxRedirects: 0 });
      expect(start.status()).toBe(201);
      const put = await request.put(start.headers()["location"], { data: bytes, maxRedirects: 0 });
      expect(put.status()).toBe(200);
    } else if (prepared.part_urls) {
      for (const [i, url] of (prepared.part_urls as string[]).entries()) {
        const part = bytes.subarray(i * prepared.part_size, (i + 1) * prepared.part_size);
        expect((await request.put(url, { data: part })).status()).toBe(200);
      }
    } else {
      expect((await request.put(prepared.upload_url, { data: bytes, headers: { "content-type": mediaType } })).status()).toBe(200);
    }
    return { prepared, mediaType };
  }

  return {
    async createBoard(title: string, parent?: string): Promise<Json> {
      return (await ok(await request.post(v1("/boards"), { headers, data: { board: { title, parent_token: parent ?? null } } }), "create board")).data;
    },
    async updateBoard(board: string, changes: Json): Promise<Json> {
      return (await ok(await request.patch(v1(`/boards/${board}`), { headers, data: { board: changes } }), "update board")).data;
    },
    async upload(file: string, opts: { board?: string; mediaType?: string; title?: string } = {}): Promise<Json> {
      const { prepared } = await sendBytes(file, opts);
      const asset = { signed_storage_id: prepared.signed_storage_id, multipart_upload_id: prepared.multipart_upload_id ?? undefined, title: opts.title, collection_token: opts.board };
      return (await ok(await request.post(v1("/assets/upload_complete"), { headers, data: { asset } }), "upload_complete")).data;
    },
    async newVersion(assetToken: string, file: string, comment?: string): Promise<Json> {
      const { prepared, mediaType } = await sendBytes(file, {});
      return ok(
        await request.patch(v1(`/assets/${assetToken}`), { headers, data: { asset: { create_version: true, signed_storage_id: prepared.signed_storage_id, media_type: mediaType, comment } } }),
        "version write",
      );
    },
    async revert(assetToken: string, versionNumber: number): Promise<Json> {
      return ok(await request.post(v1(`/assets/${assetToken}/revert`), { headers, data: { version_number: versionNumber } }), "revert");
    },
    async asset(assetToken: string): Promise<Json> {
      return (await ok(await read(v1(`/assets/${assetToken}`)), "get asset")).data;
    },
    async versions(assetToken: string): Promise<Json> {
      return ok(await read(v1(`/assets/${assetToken}/versions`)), "list versions");
    },
  };
}

/** Moves the server's clock (EASEL_TEST_CLOCK=1 in playwright.config.ts); null returns to real time. */
export async function setServerClock(request: APIRequestContext, now: Date | null) {
  const res = await request.post("/api/test/clock", { data: { now: now?.toISOString() ?? null } });
  expect(res.ok(), `test clock: HTTP ${res.status()}`).toBeTruthy();
}
