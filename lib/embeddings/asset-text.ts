import crypto from "node:crypto";
import type { Asset } from "../db/schema";
import { MAX_INPUT_CHARS } from "./client";

function kindOf(mediaType: string): string {
  if (mediaType === "application/pdf") return "PDF document";
  const family = mediaType.split("/")[0];
  return { image: "image", video: "video", audio: "audio recording", text: "text file" }[family] ?? "file";
}

function shapeOf(media: Asset["media"]): string | null {
  const { width, height } = media;
  if (!width || !height) return null;
  const orientation = width > height ? "landscape" : width < height ? "portrait" : "square";
  return `${width}×${height}, ${orientation}`;
}

/**
 * What an asset is embedded from: its words first (title, description, tags, custom fields), then
 * what processing measured (media kind, shape, duration, dominant colour names), then its text,
 * last because it is the longest and the part cut when the whole exceeds the input limit.
 */
export function embeddingText(asset: Pick<Asset, "title" | "description" | "text" | "tags" | "fields" | "mediaType" | "media">): string {
  const lines = [asset.title];
  if (asset.description) lines.push(asset.description);
  if (asset.tags.length) lines.push(`Tags: ${asset.tags.join(", ")}`);
  for (const [k, v] of Object.entries(asset.fields)) if (v) lines.push(`${k}: ${v}`);
  const about = [`${kindOf(asset.mediaType)} (${asset.mediaType})`];
  const shape = shapeOf(asset.media);
  if (shape) about.push(shape);
  if (asset.media.durationSeconds) about.push(`${Math.round(asset.media.durationSeconds)} seconds long`);
  if (asset.media.colors?.length) about.push(`mostly ${asset.media.colors.join(" and ")}`);
  lines.push(about.join(", "));
  if (asset.text) lines.push(asset.text);
  return lines.join("\n").slice(0, MAX_INPUT_CHARS);
}

/** Identifies a vector's input: the same hash means the stored vector is still the asset's. */
export const sourceHash = (model: string, text: string) => crypto.createHash("sha256").update(`${model}\n${text}`).digest("hex");
