import { sql } from "drizzle-orm";
import { bigint, customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./_columns";
import { boards } from "./boards";
import { workspaces } from "./workspaces";

export const ENCODE_STATUSES = ["none", "queued", "processing", "ready", "failed"] as const;
export type EncodeStatus = (typeof ENCODE_STATUSES)[number];

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

export type Thumbnail = { size: "small" | "medium" | "large"; key: string; width: number; height: number };
/** A processing step that went over a media limit (docs/security.md); null when the head's bytes processed within them. */
export type ProcessingError = { code: "time_limit" | "memory_limit"; message: string };
/** How far a running encode has come (from ffmpeg's progress against the probed duration); null when none runs. */
export type EncodeProgress = { fraction: number; rung: string; etaSeconds: number | null };
export type MediaInfo = { width?: number; height?: number; durationSeconds?: number; hasAudio?: boolean; colors?: string[] };

/** The live asset: its row is the head; earlier states are rows of asset_versions. */
export const assets = pgTable(
  "assets",
  {
    id: id(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    token: text("token").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    text: text("text"),
    mediaType: text("media_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    md5: text("md5").notNull(),
    /** Storage key of the head's bytes (the interface's primary_storage_id). */
    storageKey: text("storage_key").notNull(),
    /** A JSON array of strings (not text[]: jsonb feeds the full-text index below with immutable functions). */
    tags: jsonb("tags").$type<string[]>().notNull().default([]),
    fields: jsonb("fields").$type<Record<string, string>>().notNull().default({}),
    media: jsonb("media").$type<MediaInfo>().notNull().default({}),
    thumbnails: jsonb("thumbnails").$type<Thumbnail[]>().notNull().default([]),
    /** Key of the HLS master playlist once an encode of the current bytes has finished. */
    streamKey: text("stream_key"),
    encodeStatus: text("encode_status").$type<EncodeStatus>().notNull().default("none"),
    encodeError: text("encode_error"),
    processingError: jsonb("processing_error").$type<ProcessingError>(),
    encodeProgress: jsonb("encode_progress").$type<EncodeProgress>(),
    /** Key of the WebVTT thumbnails track of the head's finished encode (its sprite sheets sit beside it). */
    storyboardKey: text("storyboard_key"),
    /** The interface's head_version_number: the number the next version write takes. */
    nextVersionNumber: integer("next_version_number").notNull().default(1),
    /** How the head's current content came to be; becomes the `source` of its snapshot. */
    headSource: text("head_source").$type<"UPLOAD" | "REVERT" | "EDIT">().notNull().default("UPLOAD"),
    /** Version whose content the head carries because of the last revert (makes a retried revert a no-op). */
    revertedFrom: integer("reverted_from"),
    createdByToken: text("created_by_token"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Full-text document, weighted: title A, tags B, description C, text and field values D. */
    search: tsvector("search").generatedAlwaysAs(
      sql`setweight(to_tsvector('simple', coalesce(title, '')), 'A') || setweight(jsonb_to_tsvector('simple', tags, '["string"]'), 'B') || setweight(to_tsvector('simple', coalesce(description, '')), 'C') || setweight(to_tsvector('simple', coalesce(text, '')), 'D') || setweight(jsonb_to_tsvector('simple', fields, '["string"]'), 'D')`,
    ),
  },
  (t) => [
    uniqueIndex("assets_token_key").on(t.token),
    index("assets_workspace_idx").on(t.workspaceId, t.id),
    index("assets_search_idx").using("gin", t.search),
  ],
);

/** Asset ↔ board membership: an asset may sit on several boards. */
export const assetBoards = pgTable(
  "asset_boards",
  {
    assetId: integer("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    boardId: integer("board_id")
      .notNull()
      .references(() => boards.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.assetId, t.boardId] }), index("asset_boards_board_idx").on(t.boardId)],
);

export type Asset = typeof assets.$inferSelect;
export type NewAsset = typeof assets.$inferInsert;
