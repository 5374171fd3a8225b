import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { EaselClient } from "../client";
import { EaselError } from "../errors";
import { createMd5 } from "../md5";
import type { Connection } from "./usage";

/** Seconds the board access token minted for one download lives (the API's minimum). */
const DOWNLOAD_TOKEN_SECONDS = 60;

/**
 * The link that serves the original bytes of the head (or of version N). Media links name an
 * asset (`/media/<asset>[/vN]/original`) and are authorised by a board access token of a board
 * the asset is on; the API hands out no original link itself. An asset on no board: its
 * display link serves the original when it has no large thumbnail (files that are not images).
 */
async function originalLink(client: EaselClient, conn: Connection, assetToken: string, version: number | undefined, signal: AbortSignal) {
  const { data: asset } = await client.getAsset({ path: { slug: conn.workspace, token: assetToken }, signal });
  let expected = { md5: asset.md5, size: asset.size, title: asset.title };
  if (version !== undefined && version !== asset.head_version_number) {
    const list = await client.listVersions({ path: { slug: conn.workspace, token: assetToken }, query: { per_page: "100" }, signal });
    const found = list.data.find((v) => v.version_number === version);
    if (!found) throw new EaselError(404, "version_not_found", `asset ${assetToken} has no stored version ${version}`);
    expected = { md5: found.md5, size: found.size, title: found.title };
  }
  const versionPath = version !== undefined && version !== asset.head_version_number ? `/v${version}` : "";
  if (asset.boards.length > 0) {
    const minted = await client.createBoardAccessToken({ path: { slug: conn.workspace }, body: { board_token: asset.boards[0], expires_in: DOWNLOAD_TOKEN_SECONDS }, signal });
    const url = new URL(`/media/${encodeURIComponent(assetToken)}${versionPath}/original`, client.options.baseUrl);
    url.searchParams.set("token", minted.data.access_token);
    return { url: url.toString(), expected };
  }
  if (!versionPath && !asset.thumbnails.some((t) => t.size === "large")) return { url: asset.display_url, expected };
  throw new EaselError(0, "no_download_link", "the asset is on no board, and Easel hands out original links only through a board: add it to a board (PATCH, or upload with --board) to download it");
}

/** `easel-client download`: the original bytes to `-o FILE` (default: the title, in the current folder), md5-checked. */
export async function downloadCommand(client: EaselClient, conn: Connection, opts: { asset: string; version?: number; output?: string }, signal: AbortSignal): Promise<number> {
  const { url, expected } = await originalLink(client, conn, opts.asset, opts.version, signal);
  const response = await client.fetchWithRetry(() => new Request(url, { signal }), signal);
  if (!response.ok || !response.body) throw new EaselError(response.status, "download_failed", `the media link answered HTTP ${response.status}`);
  const target = opts.output ?? path.basename(expected.title) ?? opts.asset;
  const temp = `${target}.easel-download`;
  const md5 = await createMd5();
  let size = 0;
  const body = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    md5.update(chunk);
    size += chunk.byteLength;
  });
  await pipeline(body, fs.createWriteStream(temp), { signal });
  const got = md5.hex();
  if (got !== expected.md5 || size !== expected.size) {
    await fs.promises.rm(temp, { force: true });
    throw new EaselError(0, "checksum_mismatch", `downloaded ${size} bytes with md5 ${got}; the asset has ${expected.size} bytes with md5 ${expected.md5}`);
  }
  await fs.promises.rename(temp, target);
  process.stdout.write(`downloaded ${opts.asset} ${target}\n`);
  return 0;
}
