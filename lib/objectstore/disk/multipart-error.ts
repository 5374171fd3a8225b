/** Failures named as S3 names them (this module only serves the S3 protocol). */
export class MultipartError extends Error {
  constructor(
    readonly code: "NoSuchUpload" | "InvalidPart" | "InvalidPartOrder" | "EntityTooSmall" | "BadDigest" | "InvalidRequest",
    message: string,
  ) {
    super(message);
  }
}
