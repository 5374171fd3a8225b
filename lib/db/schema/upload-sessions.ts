import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns";
import { workspaces } from "./workspaces";

export const UPLOAD_STATUSES = ["pending", "completed", "expired"] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/** One reserved upload (upload_prepare). Completing it twice returns the asset of the first completion. */
export const uploadSessions = pgTable(
  "upload_sessions",
  {
    id: id(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Random handle carried inside the signed_storage_id. */
    handle: text("handle").notNull(),
    storageKey: text("storage_key").notNull(),
    storageKind: text("storage_kind").notNull(),
    status: text("status").$type<UploadStatus>().notNull().default("pending"),
    title: text("title"),
    mediaType: text("media_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    md5: text("md5"),
    collectionToken: text("collection_token"),
    multipartUploadId: text("multipart_upload_id"),
    /** Asset created (upload_complete) or written (version PATCH) with these bytes. */
    assetId: integer("asset_id"),
    /** What consumed the bytes: a new asset, or a version of an existing one. A session is used once. */
    consumedAs: text("consumed_as").$type<"asset" | "version">(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("upload_sessions_handle_key").on(t.handle), index("upload_sessions_status_idx").on(t.status, t.expiresAt)],
);

export type UploadSession = typeof uploadSessions.$inferSelect;
