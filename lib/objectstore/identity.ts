import crypto from "node:crypto";
import type { Db } from "../db";
import { getSecret } from "../secrets";
import type { S3Credentials } from "./s3/sigv4";

/** The one bucket Easel keeps its objects in when it uses the embedded store. */
export const EMBEDDED_BUCKET = "easel";
/** Service-account address the embedded store knows its GCS signing key by. */
export const EMBEDDED_GCS_CLIENT_EMAIL = "object-store@easel.internal";

/**
 * The embedded store's S3 key pair, generated on first use and kept in the database (settings), so
 * every process of the instance signs and verifies with the same pair.
 */
export async function embeddedS3Credentials(db: Db): Promise<S3Credentials> {
  const accessKeyId = await getSecret(db, "object_store_access_key", () => `EASEL${crypto.randomBytes(10).toString("hex").toUpperCase()}`);
  const secretAccessKey = await getSecret(db, "object_store_secret_key", () => crypto.randomBytes(30).toString("base64url"));
  return { accessKeyId, secretAccessKey };
}

export type GcsIdentity = { clientEmail: string; privateKeyPem: string; publicKey: crypto.KeyObject };

let publicKeys = new Map<string, crypto.KeyObject>();

/**
 * The embedded store's GCS signing identity: an RSA key pair (PEM in the settings table). Easel
 * signs resumable-upload URLs with it through @google-cloud/storage, exactly as it would with a
 * Google service account, and the store verifies them with the public half.
 */
export async function embeddedGcsIdentity(db: Db): Promise<GcsIdentity> {
  const privateKeyPem = await getSecret(db, "object_store_gcs_private_key", () =>
    crypto.generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  );
  let publicKey = publicKeys.get(privateKeyPem);
  if (!publicKey) {
    publicKey = crypto.createPublicKey(privateKeyPem);
    publicKeys = new Map([[privateKeyPem, publicKey]]);
  }
  return { clientEmail: EMBEDDED_GCS_CLIENT_EMAIL, privateKeyPem, publicKey };
}
