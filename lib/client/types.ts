/**
 * Wire types of the API as the browser sees it. The /v1 response types are inferred from the
 * response schemas the OpenAPI document is built from (lib/openapi/schemas), which the server's
 * presenters are typed by too, so the UI, the server and the reference cannot disagree. The
 * imports are type-only: client bundles never pull server code.
 */
import type { AiSearchPage as AiSearchPageJson, AssetJson, AssetWriteJson, ThumbnailJson } from "../openapi/schemas/assets";
import type { BoardJson } from "../openapi/schemas/boards";
import type { PagyJson } from "../openapi/schemas/common";
import type { PreparedUploadJson } from "../openapi/schemas/uploads";
import type { VersionJson, VersionListJson } from "../openapi/schemas/versions";
import type { CreatedTriggerJson, DeliveryJson, ResendJson, TriggerJson } from "../openapi/schemas/webhooks";
import type { WorkspaceJson } from "../workspaces/present";

export type Pagy = PagyJson;
export type Page<T> = { data: T[]; pagy: Pagy };
export type One<T> = { data: T };

export type Board = BoardJson;
export type BoardState = Board["state"];

export type Thumbnail = ThumbnailJson;

/** An asset; lists of search results carry `score` as well. */
export type Asset = AssetJson & { score?: number };

export type AiSearchPage = AiSearchPageJson;

export type Version = VersionJson;
export type VersionList = VersionListJson;
export type AssetWrite = AssetWriteJson;

export type PreparedUpload = PreparedUploadJson;

export type Plan = "free" | "pro" | "creative" | "team" | "business" | "enterprise";
export type StorageKind = "s3" | "gcs";
/** The admin pages' workspace, as lib/workspaces/present.ts shapes it. */
export type Workspace = WorkspaceJson;

export type Scope = "read" | "write";
/** Who made a token or an invitation; null when not recorded (the CLI, or made before Easel recorded it). */
export type Creator = { user_id: number; email: string } | null;
export type ApiToken = { id: number; name: string; prefix: string; scopes: Scope[]; webhooks: boolean; created_at: string; revoked_at: string | null; created_by: Creator };
export type IssuedApiToken = ApiToken & { token: string };

export type Trigger = TriggerJson;
export type HookKind = Trigger["hook"];
/** The answer to creation: the trigger with its signing secret, shown only then. */
export type CreatedTrigger = CreatedTriggerJson;
export type Resend = ResendJson;
/** One attempt of the delivery log (its id is a number; resend takes it in the path). */
export type Delivery = DeliveryJson;
