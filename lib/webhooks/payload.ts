import type { Asset, Hook } from "../db/schema";
import type { MediaLinker } from "../media/links";

/**
 * The JSON body of a delivery, per the interface's "Events": the same envelope for every event
 * kind, and per kind its own asset fields. Field order is the documented one (receivers see it).
 */
export type AddedAssetJson = {
  id: number;
  token: string;
  title: string;
  media_type: string;
  display_url: string;
  created_at: string;
  updated_at: string;
  tags: string[];
  fields: Record<string, string>;
};
export type UpdatedAssetJson = { id: number; token: string; title: string; updated_at: string; changes: Record<string, { old: unknown; new: unknown }> };
export type DeletedAssetJson = { id: number; token: string; title: string };
export type PayloadAsset = AddedAssetJson | UpdatedAssetJson | DeletedAssetJson;

export type Organization = { slug: string; name: string };
export type Collection = { token: string; title: string };

export type WebhookPayload = {
  event: Hook;
  /** When the change happened (not when this attempt was sent): identical across retries and triggers, a dedupe key. */
  timestamp: string;
  organization: Organization;
  /** The board the trigger watches (an asset on a sub-board is reported under the watched board). */
  collection: Collection;
  asset: PayloadAsset;
};

/** The envelope without its collection: one per event, shared by every trigger it goes to. */
export type PayloadBase = Omit<WebhookPayload, "collection">;

export function addedAssetJson(asset: Asset, link: MediaLinker): AddedAssetJson {
  return {
    id: asset.id,
    token: asset.token,
    title: asset.title,
    media_type: asset.mediaType,
    display_url: link(asset.token, "display"),
    created_at: asset.createdAt.toISOString(),
    updated_at: asset.updatedAt.toISOString(),
    tags: asset.tags,
    fields: asset.fields,
  };
}

export function updatedAssetJson(asset: Asset, changes: UpdatedAssetJson["changes"]): UpdatedAssetJson {
  return { id: asset.id, token: asset.token, title: asset.title, updated_at: asset.updatedAt.toISOString(), changes };
}

export function deletedAssetJson(snapshot: { id: number; token: string; title: string }): DeletedAssetJson {
  return { id: snapshot.id, token: snapshot.token, title: snapshot.title };
}

export function payloadFor(base: PayloadBase, collection: Collection): WebhookPayload {
  return { event: base.event, timestamp: base.timestamp, organization: base.organization, collection, asset: base.asset };
}

/** Key order of the documented objects; keys of data maps (fields, changes) sort alphabetically. */
const KEY_ORDER = {
  envelope: ["event", "timestamp", "organization", "collection", "asset"],
  organization: ["slug", "name"],
  collection: ["token", "title"],
  asset: ["id", "token", "title", "media_type", "display_url", "created_at", "updated_at", "tags", "fields", "changes"],
  change: ["old", "new"],
} as const;

function orderAt(path: string[]): readonly string[] {
  if (path.length === 0) return KEY_ORDER.envelope;
  if (path.length === 1 && (path[0] === "organization" || path[0] === "collection" || path[0] === "asset")) return KEY_ORDER[path[0]];
  if (path.length === 3 && path[0] === "asset" && path[1] === "changes") return KEY_ORDER.change;
  return [];
}

function canonical(value: unknown, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((v, i) => canonical(v, [...path, String(i)]));
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  const order = orderAt(path);
  const keys = [...order.filter((k) => k in obj), ...Object.keys(obj).filter((k) => !order.includes(k)).sort()];
  return Object.fromEntries(keys.map((k) => [k, canonical(obj[k], [...path, k])]));
}

/**
 * The exact bytes of a delivery body. Payloads pass through stores that do not keep key order
 * (Postgres jsonb sorts keys), so the body is written in one canonical order: the documented order
 * for the envelope and the asset, alphabetical inside data maps. Every attempt and every resend of
 * a message sends identical bytes, whichever store the payload came back from.
 */
export function serializePayload(payload: unknown): string {
  return JSON.stringify(canonicalPayload(payload));
}

/** The payload with its keys in the canonical order (the delivery log shows it as it was sent). */
export function canonicalPayload(payload: unknown): unknown {
  return canonical(payload, []);
}
