import { api, ApiClientError } from "../api";
import type { Asset } from "../types";

/**
 * The three bulk actions, one asset at a time, each through the routes any client uses:
 * DELETE /v1/…/assets/:token, GET + PATCH `tags` (the PATCH replaces the list, so the asset is
 * read first and the tag added to what it has now), and the original's media link.
 */
export type BulkAction = "delete" | "tag" | "download";

export const deleteAsset = (slug: string, asset: Asset) => api.assets.remove(slug, asset.token);

export async function addTag(slug: string, asset: Asset, tag: string): Promise<void> {
  const { data: current } = await api.assets.get(slug, asset.token);
  if (current.tags.includes(tag)) return;
  await api.assets.update(slug, asset.token, { tags: [...current.tags, tag] });
}

/** The original's bytes, read with the board access token the board page holds (the media route's `?token=`). */
export const originalUrl = (asset: Asset, boardAccessToken: string) => `/media/${encodeURIComponent(asset.token)}/original?token=${encodeURIComponent(boardAccessToken)}`;

/** A file name for the download: the title, with the media type's subtype as extension when the title has none. */
export function downloadName(asset: Asset): string {
  const base = asset.title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "_").trim() || asset.token;
  if (/\.[A-Za-z0-9]{1,8}$/.test(base)) return base;
  const sub = asset.media_type.split("/")[1]?.split(/[+;]/)[0];
  return sub && /^[a-z0-9.-]{1,16}$/.test(sub) ? `${base}.${sub}` : base;
}

/**
 * Downloads one original: first one byte of it (so a missing asset or refused link is reported
 * with its code, which a plain link click never tells), then the browser's own download of the
 * whole file, streamed to disk rather than held in memory.
 */
export async function downloadOriginal(asset: Asset, boardAccessToken: string, signal?: AbortSignal): Promise<void> {
  const url = originalUrl(asset, boardAccessToken);
  const probe = await fetch(url, { headers: { range: "bytes=0-0" }, signal, credentials: "omit" }).catch((err: unknown) => {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiClientError(0, "network_error", "The server could not be reached");
  });
  if (!probe.ok) {
    const body = (await probe.json().catch(() => null)) as { errors?: { message?: string; extensions?: { code?: string } }[] } | null;
    const first = body?.errors?.[0];
    throw new ApiClientError(probe.status, first?.extensions?.code ?? `http_${probe.status}`, first?.message ?? probe.statusText);
  }
  await probe.body?.cancel();
  const link = document.createElement("a");
  link.href = url;
  link.download = downloadName(asset);
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  // Browsers drop downloads started in the same instant; a short pause keeps each one.
  await new Promise((r) => setTimeout(r, 350));
}
