import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import type { Db } from "../../db";
import { env } from "../../env";
import { EMBEDDED_BUCKET, embeddedS3Credentials } from "../../objectstore/identity";
import { S3_MOUNT_PATH } from "../../objectstore/mounts";

export type S3Settings = {
  endpoint?: string;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** The embedded store: the bucket is created on first use. */
  embedded: boolean;
};

/** A configured external S3 (AWS S3, R2, B2, MinIO…), or null to use the embedded store. */
export function externalS3Settings(): S3Settings | null {
  const e = env();
  if (!e.EASEL_S3_BUCKET) return null;
  const credentials =
    e.EASEL_S3_ACCESS_KEY_ID && e.EASEL_S3_SECRET_ACCESS_KEY
      ? { accessKeyId: e.EASEL_S3_ACCESS_KEY_ID, secretAccessKey: e.EASEL_S3_SECRET_ACCESS_KEY }
      : undefined; // unset: the SDK's default chain (AWS_* variables, instance or task roles)
  return {
    endpoint: e.EASEL_S3_ENDPOINT,
    region: e.EASEL_S3_REGION ?? "us-east-1",
    bucket: e.EASEL_S3_BUCKET,
    forcePathStyle: e.EASEL_S3_FORCE_PATH_STYLE,
    credentials,
    embedded: false,
  };
}

/** The embedded store's S3 endpoint on Easel's own origin, with the instance's generated keys. */
export async function embeddedS3Settings(baseUrl: string, db: Db): Promise<S3Settings> {
  return {
    endpoint: `${baseUrl.replace(/\/+$/, "")}${S3_MOUNT_PATH}`,
    region: "us-east-1",
    bucket: EMBEDDED_BUCKET,
    forcePathStyle: true,
    credentials: await embeddedS3Credentials(db),
    embedded: true,
  };
}

/** `requestHandler`: how requests reach the store (the embedded store's is in-process); the SDK's HTTP handler by default. */
export function makeS3Client(settings: S3Settings, requestHandler?: S3ClientConfig["requestHandler"]): S3Client {
  const client = new S3Client({
    requestHandler,
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // The defaults put an empty-body CRC32 into presigned URLs (which real S3 then refuses) and send
    // streamed bodies aws-chunked; Easel wants plain bodies and plain presigned URLs.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  if (settings.embedded) {
    // The SDK addresses a bucket (CreateBucket, ListObjects…) as `/<bucket>/`, and Next.js answers
    // a path ending in "/" with a redirect to the path without it. Bucket requests to the embedded
    // store are sent as `/<bucket>`, before signing, so the signature covers the path sent.
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { path?: unknown };
        if ((args.input as { Key?: unknown }).Key === undefined && typeof request.path === "string" && request.path.length > 1) {
          request.path = request.path.replace(/\/+$/, "");
        }
        return next(args);
      },
      { step: "build", name: "easelBucketPathWithoutSlash" },
    );
  }
  return client;
}
