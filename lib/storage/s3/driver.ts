import crypto from "node:crypto";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type Part,
  type S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { Clock } from "../../clock";
import { DomainError } from "../../errors";
import { MAX_PRESIGN_SECONDS, MULTIPART_THRESHOLD, PART_SIZE, partCount, presignSeconds } from "../limits";
import type { ObjectInfo, PreparedUpload, StorageDriver } from "../types";
import { isS3NotFound, s3ErrorName, toStorageError } from "./errors";
import { writeStreamInParts } from "./write-stream";

export type S3Target = {
  client: S3Client;
  bucket: string;
  /**
   * The store refuses on its own to let a presigned URL replace an object (Easel's embedded store).
   * Otherwise (AWS S3 and the like) upload URLs are signed with `If-None-Match: *`: the client must
   * send it, and S3 answers 412 when the key already holds an object.
   */
  sealsUploads?: boolean;
};

/** The precondition signed into upload URLs for a bucket that does not seal them itself. */
const CREATE_ONLY = { IfNoneMatch: "*" } as const;

/**
 * The S3 driver (Kind B): the AWS SDK and its presigner, against any S3 endpoint — the embedded
 * store by default, AWS S3 or a compatible service by env. Requests and presigned URLs are signed
 * at Easel's clock, so the test clock governs their expiry on both sides.
 */
export function createS3Driver(target: () => Promise<S3Target>, clock: Clock): StorageDriver {
  /** Runs SDK calls with the client's clock set to Easel's, so header signatures carry Easel's time. */
  const withClient = async <T>(fn: (client: S3Client, Bucket: string) => Promise<T>): Promise<T> => {
    const { client, bucket } = await target();
    client.config.systemClockOffset = clock().getTime() - Date.now();
    return fn(client, bucket);
  };
  type PresignOptions = { expiresIn: number; signingDate: Date };
  const uploadCondition = async () => ((await target()).sealsUploads ? {} : CREATE_ONLY);
  const presign = async (sign: (client: S3Client, Bucket: string, opts: PresignOptions) => Promise<string>, expiresIn: number) => {
    const { client, bucket } = await target();
    return sign(client, bucket, { expiresIn, signingDate: clock() });
  };
  const bucketOf = async () => (await target()).bucket;

  const head = async (key: string): Promise<ObjectInfo | null> => {
    try {
      const out = await withClient((c, Bucket) => c.send(new HeadObjectCommand({ Bucket, Key: key })));
      if (out.ContentLength === undefined) throw new DomainError("storage_unavailable", "head: storage reported no object size");
      return { size: out.ContentLength, etag: (out.ETag ?? "").replace(/"/g, ""), contentType: out.ContentType ?? null };
    } catch (err) {
      if (isS3NotFound(err)) return null;
      throw toStorageError(err, "head");
    }
  };

  const read = async (key: string, range?: { start: number; end?: number }): Promise<ReadableStream<Uint8Array>> => {
    try {
      const Range = range ? `bytes=${range.start}-${range.end ?? ""}` : undefined;
      const out = await withClient((c, Bucket) => c.send(new GetObjectCommand({ Bucket, Key: key, Range })));
      if (!out.Body) throw new DomainError("storage_unavailable", "read: storage answered without a body");
      return out.Body.transformToWebStream() as ReadableStream<Uint8Array>;
    } catch (err) {
      if (s3ErrorName(err) === "InvalidRange") throw new DomainError("validation_failed", "The range starts beyond the end of the object", { field: "range" });
      throw toStorageError(err, "read");
    }
  };

  return {
    kind: "s3",

    async prepareUpload({ key, size, contentType, expiresAt }): Promise<PreparedUpload> {
      const Bucket = await bucketOf();
      const expiresIn = presignSeconds(expiresAt, clock());
      try {
        if (size < MULTIPART_THRESHOLD) {
          // Content-Type is left out of the signature: browsers send the file's own type, which may differ.
          // If-None-Match is in it (real buckets): without it the URL could replace the object until it expires.
          const condition = await uploadCondition();
          const uploadUrl = await presign((c, B, o) => getSignedUrl(c, new PutObjectCommand({ Bucket: B, Key: key, ...condition }), o), expiresIn);
          return { uploadUrl, multipartUploadId: null, partSize: null, partUrls: null, listPartsUrl: null };
        }
        const created = await withClient((c) => c.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: contentType })));
        if (!created.UploadId) throw new DomainError("storage_unavailable", "prepare: storage created no multipart upload");
        const UploadId = created.UploadId;
        const partUrls: string[] = [];
        for (let n = 1; n <= partCount(size); n++) {
          partUrls.push(await presign((c, B, o) => getSignedUrl(c, new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: n }), o), expiresIn));
        }
        const listPartsUrl = await presign((c, B, o) => getSignedUrl(c, new ListPartsCommand({ Bucket: B, Key: key, UploadId }), o), expiresIn);
        return { uploadUrl: partUrls[0], multipartUploadId: UploadId, partSize: PART_SIZE, partUrls, listPartsUrl };
      } catch (err) {
        throw toStorageError(err, "prepare upload");
      }
    },

    async completeMultipart({ key, uploadId, expectedParts }) {
      const Bucket = await bucketOf();
      let parts: Part[];
      try {
        parts = await withClient((c) => listAllParts(c, Bucket, key, uploadId));
      } catch (err) {
        // Completed already (a retried completion): the object is there and the upload is gone.
        if (s3ErrorName(err) === "NoSuchUpload" && (await head(key))) return;
        if (s3ErrorName(err) === "NoSuchUpload") throw new DomainError("storage_object_not_found", "No such multipart upload: it was aborted, completed or never created");
        throw toStorageError(err, "list parts");
      }
      const byNumber = new Map(parts.map((p) => [p.PartNumber, p]));
      const missing = Array.from({ length: expectedParts }, (_, i) => i + 1).filter((n) => !byNumber.has(n));
      if (missing.length) {
        throw new DomainError("storage_object_not_found", `Part${missing.length > 1 ? "s" : ""} ${missing.slice(0, 10).join(", ")} of ${expectedParts} not uploaded`, { missing_parts: missing });
      }
      const chosen = Array.from({ length: expectedParts }, (_, i) => byNumber.get(i + 1) as Part).map((p) => ({ PartNumber: p.PartNumber, ETag: p.ETag }));
      try {
        // Create only: the assembled parts never replace an object already at the key.
        await withClient((c) => c.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: chosen }, ...CREATE_ONLY })));
      } catch (err) {
        const name = s3ErrorName(err);
        // Taken meanwhile: a concurrent completion of this upload won (no upload URL names the key
        // itself). What is there stays; the caller checks its size and md5 as for any completion.
        if (name === "PreconditionFailed" && (await head(key))) return;
        if (name === "InvalidPart" || name === "EntityTooSmall" || name === "NoSuchUpload") {
          throw new DomainError("storage_object_not_found", `The uploaded parts cannot be assembled (${name})`);
        }
        throw toStorageError(err, "complete multipart upload");
      }
    },

    async abortMultipart({ key, uploadId }) {
      try {
        await withClient((c, Bucket) => c.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId })));
      } catch (err) {
        if (s3ErrorName(err) === "NoSuchUpload") return;
        throw toStorageError(err, "abort multipart upload");
      }
    },

    head,

    async md5(key) {
      // A store that knows the digest says so in Content-MD5 (the embedded one does); otherwise hash
      // the bytes. The SDK does not model that header on HeadObject, so a middleware reads it.
      let declared: string | undefined;
      const command = new HeadObjectCommand({ Bucket: await bucketOf(), Key: key });
      command.middlewareStack.add(
        (next) => async (args) => {
          const out = await next(args);
          const headers = (out.response as { headers?: Record<string, string> }).headers;
          declared = headers?.["content-md5"];
          return out;
        },
        { step: "deserialize", name: "easelContentMd5" },
      );
      try {
        await withClient((c) => c.send(command));
      } catch (err) {
        if (isS3NotFound(err)) throw new DomainError("storage_object_not_found", "md5: the object is not in storage");
        throw toStorageError(err, "md5");
      }
      if (declared && Buffer.from(declared, "base64").length === 16) return Buffer.from(declared, "base64").toString("hex");
      const hash = crypto.createHash("md5");
      for await (const chunk of (await read(key)) as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
      return hash.digest("hex");
    },

    read,

    async write(key, body, contentType) {
      const Bucket = await bucketOf();
      try {
        if (Buffer.isBuffer(body)) await withClient((c) => c.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length })));
        else await withClient((c) => writeStreamInParts(c, { Bucket, Key: key, ContentType: contentType }, body));
      } catch (err) {
        throw toStorageError(err, "write");
      }
    },

    async copy(fromKey, toKey) {
      const Bucket = await bucketOf();
      const source = `${Bucket}/${fromKey.split("/").map(encodeURIComponent).join("/")}`;
      try {
        await withClient((c) => c.send(new CopyObjectCommand({ Bucket, Key: toKey, CopySource: source })));
      } catch (err) {
        throw toStorageError(err, "copy");
      }
    },

    async delete(key) {
      try {
        await withClient((c, Bucket) => c.send(new DeleteObjectCommand({ Bucket, Key: key })));
      } catch (err) {
        if (isS3NotFound(err)) return;
        throw toStorageError(err, "delete");
      }
    },

    async signedReadUrl(key, { expiresInSeconds, responseContentType }) {
      const expiresIn = Math.max(1, Math.min(expiresInSeconds, MAX_PRESIGN_SECONDS));
      return presign((c, Bucket, o) => getSignedUrl(c, new GetObjectCommand({ Bucket, Key: key, ResponseContentType: responseContentType }), o), expiresIn);
    },
  };
}

async function listAllParts(client: S3Client, Bucket: string, Key: string, UploadId: string): Promise<Part[]> {
  const parts: Part[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await client.send(new ListPartsCommand({ Bucket, Key, UploadId, PartNumberMarker: marker }));
    parts.push(...(page.Parts ?? []));
    if (!page.IsTruncated || !page.NextPartNumberMarker) return parts;
    marker = page.NextPartNumberMarker;
  }
}

/** Creates the embedded store's bucket once per process (an existing bucket is fine). */
export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    const name = s3ErrorName(err);
    if (name !== "BucketAlreadyOwnedByYou" && name !== "BucketAlreadyExists") throw toStorageError(err, "create bucket");
  }
}
