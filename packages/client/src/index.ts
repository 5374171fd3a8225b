/**
 * @easel/client in Node (≥ 20): everything of the browser entry, and `uploadFile` also takes
 * `file` as a path on disk (read lazily through fs.openAsBlob, never whole into memory).
 */
import fs from "node:fs";
import path from "node:path";
import type { EaselClient } from "./client";
import type { Asset } from "./types";
import { uploadFile as uploadSource, type UploadFileOptions as SourceOptions } from "./upload/upload-file";

export * from "./browser";

export type NodeUploadFileOptions = Omit<SourceOptions, "file"> & { file?: string | Blob };

/** As the browser's uploadFile; `file` may be a path (its base name is the default title). */
export async function uploadFile(client: EaselClient, opts: NodeUploadFileOptions): Promise<Asset> {
  if (typeof opts.file !== "string") return uploadSource(client, opts as SourceOptions);
  const blob = await fs.openAsBlob(opts.file);
  return uploadSource(client, { ...opts, file: blob, title: opts.title ?? path.basename(opts.file) });
}
