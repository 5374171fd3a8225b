/**
 * @easel/client in Node (≥ 20): everything of the browser entry, and `uploadFile` also takes
 * `file` as a path on disk (read a part at a time, never whole into memory).
 */
import type { EaselClient } from "./client";
import { openFileSource } from "./node/file-source";
import type { Asset } from "./types";
import { uploadFile as uploadSource, type UploadFileOptions as SourceOptions } from "./upload/upload-file";

export * from "./browser";

export type NodeUploadFileOptions = Omit<SourceOptions, "file"> & { file?: string | SourceOptions["file"] };
export { openFileSource };

/** As the browser's uploadFile; `file` may be a path (its base name is the default title). */
export async function uploadFile(client: EaselClient, opts: NodeUploadFileOptions): Promise<Asset> {
  if (typeof opts.file !== "string") return uploadSource(client, opts as SourceOptions);
  return uploadSource(client, { ...opts, file: await openFileSource(opts.file) });
}
