/**
 * Wire types of the API as the browser sees it (spec/contract.md, docs/api.md). Written from the
 * contract, not imported from server modules, so client bundles never pull server code.
 */
export type Pagy = { current_page: number; page_items: number; total_pages: number; total_count: number };
export type Page<T> = { data: T[]; pagy: Pagy };
export type One<T> = { data: T };

export type BoardState = "active" | "archived" | "read_only" | "trashed";
export type Board = { token: string; title: string; parent_token: string | null; state: BoardState; created_at: string; updated_at: string };

export type ThumbnailSize = "small" | "medium" | "large";
export type Thumbnail = { size: ThumbnailSize; url: string; width: number; height: number };
export type EncodeStatus = "none" | "queued" | "processing" | "ready" | "failed";

export type Asset = {
  id: number;
  token: string;
  title: string;
  description: string | null;
  text: string | null;
  media_type: string;
  display_url: string;
  stream_url: string | null;
  created_at: string;
  updated_at: string;
  tags: string[];
  fields: Record<string, string>;
  primary_storage_id: string | null;
  boards: string[];
  encode_status: EncodeStatus;
  size: number;
  md5: string;
  head_version_number: number;
  thumbnails: Thumbnail[];
  width?: number | null;
  height?: number | null;
  duration?: number | null;
  /** Search results only. */
  score?: number;
};

export type AiSearchPage = Page<Asset> & { explanation?: string };

export type VersionSource = "UPLOAD" | "REVERT" | "EDIT";
export type Version = {
  version_number: number;
  source: VersionSource;
  comment: string | null;
  title?: string;
  md5?: string;
  size?: number;
  media_type?: string;
  revertable: boolean;
  created_at: string;
  created_by_token?: string | null;
  thumbnails?: Thumbnail[];
  primary_storage_id?: string | null;
};
export type VersionList = Page<Version> & { head_version_number: number };
export type AssetWrite = { data: Asset; head_version_number: number };

export type PreparedUpload = {
  storage_provider: "gcs" | "s3";
  signed_storage_id: string;
  upload_url: string;
  multipart_upload_id: string | null;
  part_size: number | null;
  part_urls: string[] | null;
  expires_at: string;
};

export type Plan = "free" | "pro" | "creative" | "team" | "business" | "enterprise";
export type StorageKind = "s3" | "gcs";
export type Workspace = {
  slug: string;
  name: string;
  plan: Plan;
  trial_of: Plan | null;
  storage_kind: StorageKind;
  streaming_enabled: boolean;
  versioning: boolean;
  revert_window_days: number | null;
  encodes_on_upload: boolean;
  created_at: string;
  updated_at: string;
};

export type Scope = "read" | "write";
export type ApiToken = { id: number; name: string; prefix: string; scopes: Scope[]; webhooks: boolean; created_at: string; revoked_at: string | null };
export type IssuedApiToken = ApiToken & { token: string };

export type HookKind = "asset_added" | "asset_updated" | "asset_deleted";
export type Trigger = {
  id: string;
  hook: HookKind;
  hook_url: string;
  organization_slug: string;
  collection_token: string;
  expiration_date: string;
  /** active | expired | disabled (a receiver answered 410). */
  status?: "active" | "expired" | "disabled";
  /** Only in the answer to creation. */
  secret?: string;
  [extra: string]: unknown;
};
export type Delivery = {
  id: string;
  event?: string;
  status?: string;
  response_status?: number | null;
  attempt?: number;
  created_at?: string;
  duration_ms?: number | null;
  error?: string | null;
  [extra: string]: unknown;
};
