/**
 * @easel/client in a browser (and any runtime with fetch, Blob and streams): no Node API is
 * imported from here. Node's entry (index.ts) adds uploading a file by its path.
 */
export { createClient, type ClientOptions, type EaselClient, type OperationInit, type OperationResult } from "./client";
export { EaselError } from "./errors";
export { md5Of } from "./md5";
export { DEFAULT_RETRY, type RetryOptions } from "./retry";
export type { Asset, components, operations, paths, PreparedUpload, Version, WebhookPayload } from "./types";
export type { ByteSource, RandomAccessSource } from "./upload/byte-reader";
export { uploadFile, type ResumeState, type ResumeStore, type UploadFileOptions } from "./upload/upload-file";
export { verifyWebhook } from "./webhook";
