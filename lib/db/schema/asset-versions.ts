import { bigint, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns";
import { assets, type MediaInfo, type Thumbnail } from "./assets";

export const VERSION_SOURCES = ["UPLOAD", "REVERT", "EDIT"] as const;
export type VersionSource = (typeof VERSION_SOURCES)[number];

/** An immutable snapshot of an asset's head, taken before a version write replaced it. Never pruned. */
export const assetVersions = pgTable(
  "asset_versions",
  {
    id: id(),
    assetId: integer("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    versionNumber: integer("version_number").notNull(),
    source: text("source").$type<VersionSource>().notNull(),
    comment: text("comment"),
    title: text("title").notNull(),
    description: text("description"),
    text: text("text"),
    mediaType: text("media_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    md5: text("md5").notNull(),
    storageKey: text("storage_key").notNull(),
    thumbnails: jsonb("thumbnails").$type<Thumbnail[]>().notNull().default([]),
    media: jsonb("media").$type<MediaInfo>().notNull().default({}),
    createdByToken: text("created_by_token"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("asset_versions_number_key").on(t.assetId, t.versionNumber)],
);

export type AssetVersion = typeof assetVersions.$inferSelect;
