import type { Layout } from "../disk/layout";
import type { CommitMode } from "../disk/objects";
import type { PayloadPolicy, SigV4Auth } from "./sigv4";

/** One authenticated S3 request, as every operation receives it. */
export type S3Call = {
  lay: Layout;
  req: Request;
  url: URL;
  bucket: string;
  /** "" for requests on the bucket itself. */
  key: string;
  payload: PayloadPolicy;
  /** How the request was signed: decides whether a write may replace an existing object (`commitModeOf`). */
  auth: SigV4Auth["mode"];
  /** What a presigned write does to an object already at its key (`PresignedWrites`). */
  presignedWrites: PresignedWrites;
  now: Date;
};

/**
 * `seal` (Easel's own store): a presigned write may create an object but never replace one.
 * `replace`: a presigned write replaces the object at its key unless its own conditions
 * (`If-None-Match: *`) forbid it, as AWS S3 does: the store standing in for a real bucket in tests.
 */
export type PresignedWrites = "seal" | "replace";

/**
 * A presigned URL (handed to an uploader) may create an object but never replace one: once its
 * bytes were accepted, the same URL, valid for 24 hours, must not be able to change them. The
 * store's own key pair (Easel's server, an operator's S3 client) keeps S3's overwrite semantics.
 */
export const commitModeOf = (call: Pick<S3Call, "auth" | "presignedWrites">): CommitMode => (call.auth === "presigned" && call.presignedWrites === "seal" ? "create-only" : "overwrite");
