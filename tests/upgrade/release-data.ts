import crypto from "node:crypto";
import { api } from "../../bench/scale/cluster";

/**
 * Data made through a release's own API, and what of it must read back the same after an upgrade.
 * Only fields every recorded release answers are compared (later releases add fields of their own).
 */
export type Seeded = { slug: string; boards: string[]; assets: string[]; boardAccessToken: string; triggerId: string };

const md5 = (bytes: Uint8Array | Buffer) => crypto.createHash("md5").update(bytes).digest("hex");

/** upload_prepare, the PUT to its URL (an s3 workspace: one presigned PUT), then upload_complete or a version write. */
async function prepareAndPut(origin: string, token: string, slug: string, bytes: Buffer, title: string): Promise<string> {
  const prep = (await api(origin, token, "POST", `/v1/${slug}/assets/upload_prepare`, { asset: { title, media_type: "application/octet-stream", size: bytes.length, md5: md5(bytes) } })).body.data;
  const put = await fetch(prep.upload_url, { method: "PUT", body: new Uint8Array(bytes), headers: { "content-type": "application/octet-stream" } });
  if (!put.ok) throw new Error(`PUT ${prep.upload_url} → ${put.status} ${await put.text()}`);
  return prep.signed_storage_id as string;
}

export async function uploadAsset(origin: string, token: string, slug: string, board: string, title: string): Promise<string> {
  const id = await prepareAndPut(origin, token, slug, crypto.randomBytes(150_000), title);
  return (await api(origin, token, "POST", `/v1/${slug}/assets/upload_complete`, { asset: { signed_storage_id: id, collection_token: board } })).body.data.token as string;
}

/** Boards (a parent and a child), assets with versions (bytes, metadata, a revert), a board access token and a webhook trigger. */
export async function seed(origin: string, token: string, slug: string, hookUrl: string): Promise<Seeded> {
  const parent = (await api(origin, token, "POST", `/v1/${slug}/boards`, { board: { title: "Campaign" } })).body.data.token as string;
  const child = (await api(origin, token, "POST", `/v1/${slug}/boards`, { board: { title: "Drafts", parent_token: parent } })).body.data.token as string;
  const triggerId = (await api(origin, token, "POST", "/v1/trigger", { hook: "asset_added", hook_url: hookUrl, organization_slug: slug, collection_token: parent })).body.id as string;
  const a = await uploadAsset(origin, token, slug, parent, "Poster");
  const b = await uploadAsset(origin, token, slug, child, "Sketch");
  const second = await prepareAndPut(origin, token, slug, crypto.randomBytes(90_000), "Poster v2");
  await api(origin, token, "PATCH", `/v1/${slug}/assets/${a}`, { asset: { create_version: true, signed_storage_id: second, comment: "new cut" } });
  await api(origin, token, "PATCH", `/v1/${slug}/assets/${a}`, { asset: { create_version: true, description: "approved", comment: "metadata checkpoint" } });
  await api(origin, token, "POST", `/v1/${slug}/assets/${a}/revert`, { version_number: 1, comment: "back to the first cut" });
  await api(origin, token, "PATCH", `/v1/${slug}/assets/${b}`, { asset: { title: "Sketch (final)" } });
  const access = (await api(origin, token, "POST", `/v1/${slug}/access_tokens`, { board_token: parent, expires_in: 3600 })).body.data.access_token as string;
  return { slug, boards: [parent, child], assets: [a, b], boardAccessToken: access, triggerId };
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k] ?? null]));

/** What the data reads as through a server: compared before and after the upgrade. */
export async function snapshot(origin: string, token: string, seeded: Seeded) {
  const { slug } = seeded;
  const boards = [];
  for (const board of seeded.boards) {
    const data = (await api(origin, token, "GET", `/v1/${slug}/boards/${board}`)).body.data;
    const children = (await api(origin, token, "GET", `/v1/${slug}/boards/${board}/children`)).body.data as { token: string }[];
    const assets = (await api(origin, token, "GET", `/v1/${slug}/boards/${board}/assets`)).body.data as { token: string }[];
    boards.push({ ...pick(data, ["token", "title"]), children: children.map((c) => c.token).sort(), assets: assets.map((a) => a.token).sort() });
  }
  const assets = [];
  for (const asset of seeded.assets) {
    const data = (await api(origin, token, "GET", `/v1/${slug}/assets/${asset}`)).body.data;
    const media = await fetch(new URL(data.display_url, origin));
    if (media.status !== 200) throw new Error(`display_url of ${asset} answered ${media.status}`);
    const bytes = new Uint8Array(await media.arrayBuffer());
    const versions = (await api(origin, token, "GET", `/v1/${slug}/assets/${asset}/versions`)).body.data as Record<string, unknown>[];
    assets.push({
      ...pick(data, ["token", "title", "description", "media_type", "size", "md5", "head_version_number", "boards"]),
      bytes_md5: md5(bytes),
      versions: versions.map((v) => pick(v, ["version_number", "source", "comment", "md5", "size", "title"])),
    });
  }
  const triggers = ((await api(origin, token, "GET", "/v1/trigger")).body.data as { id: string }[]).map((t) => t.id);
  const viaBoardToken = await fetch(`${origin}/v1/${slug}/boards/${seeded.boards[0]}`, { headers: { authorization: `Bearer ${seeded.boardAccessToken}` } });
  return { boards, assets, trigger_listed: triggers.includes(seeded.triggerId), board_access_token_status: viaBoardToken.status };
}
