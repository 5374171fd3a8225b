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
  now: Date;
};

/**
 * A presigned URL (handed to an uploader) may create an object but never replace one: once its
 * bytes were accepted, the same URL, valid for 24 hours, must not be able to change them. The
 * store's own key pair (Easel's server, an operator's S3 client) keeps S3's overwrite semantics.
 */
export const commitModeOf = (call: Pick<S3Call, "auth">): CommitMode => (call.auth === "presigned" ? "create-only" : "overwrite");
