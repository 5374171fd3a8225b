import fs from "node:fs";
import { Storage, type GetSignedUrlConfig } from "@google-cloud/storage";
import type { Db } from "../../db";
import { env } from "../../env";
import { EMBEDDED_BUCKET, embeddedGcsIdentity } from "../../objectstore/identity";
import { GCS_MOUNT_PATH } from "../../objectstore/mounts";
import { MAX_PRESIGN_SECONDS } from "../limits";

/**
 * Signs GCS V4 URLs offline with @google-cloud/storage: with a Google service account for Google
 * Cloud Storage, or with the embedded store's own key pair for the embedded store.
 */
export type GcsSigner = { storage: Storage; bucket: string; embedded: boolean; baseUrl: string };

export function externalGcsSigner(): GcsSigner | null {
  const e = env();
  if (!e.EASEL_GCS_BUCKET) return null;
  const storage = e.EASEL_GCS_CREDENTIALS
    ? new Storage({ credentials: JSON.parse(fs.readFileSync(e.EASEL_GCS_CREDENTIALS, "utf8")) })
    : new Storage(); // Application Default Credentials
  return { storage, bucket: e.EASEL_GCS_BUCKET, embedded: false, baseUrl: "https://storage.googleapis.com" };
}

export async function embeddedGcsSigner(baseUrl: string, db: Db): Promise<GcsSigner> {
  const identity = await embeddedGcsIdentity(db);
  const origin = baseUrl.replace(/\/+$/, "");
  const storage = new Storage({
    projectId: "easel",
    apiEndpoint: origin,
    credentials: { client_email: identity.clientEmail, private_key: identity.privateKeyPem },
  });
  return { storage, bucket: EMBEDDED_BUCKET, embedded: true, baseUrl: origin };
}

/**
 * A V4 signed URL from the library's own signer. For the embedded store the store's mount path is
 * put in front of the signed path: the signature covers /bucket/object, as it does on GCS, and the
 * store verifies it against the path below its mount.
 */
export async function signGcsUrl(signer: GcsSigner, key: string, cfg: Omit<GetSignedUrlConfig, "version" | "expires" | "accessibleAt">, now: Date, expiresAt: Date): Promise<string> {
  const latest = now.getTime() + MAX_PRESIGN_SECONDS * 1000;
  const expires = Math.max(now.getTime() + 1000, Math.min(expiresAt.getTime(), latest));
  const [signed] = await signer.storage.bucket(signer.bucket).file(key).getSignedUrl({ ...cfg, version: "v4", accessibleAt: now, expires });
  if (!signer.embedded) return signed;
  const url = new URL(signed);
  const base = new URL(signer.baseUrl);
  return `${base.origin}${base.pathname.replace(/\/+$/, "")}${GCS_MOUNT_PATH}${url.pathname}${url.search}`;
}
