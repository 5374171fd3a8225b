import type { Db } from "../db";
import { env } from "../env";
import { embeddedS3Settings, externalS3Settings } from "../storage/s3/config";
import { UsageError, type Output } from "./usage";

const USAGE = "storage credentials";

/**
 * Where people reach this server: EASEL_PUBLIC_URL when set, else the local port (the command runs
 * on the server's machine, with its environment).
 */
function serverBaseUrl(): string {
  const configured = env().EASEL_PUBLIC_URL;
  return configured ? configured.replace(/\/+$/, "") : `http://localhost:${env().PORT ?? "3000"}`;
}

/**
 * `npm run easel -- storage credentials` (contract §10; docs/storage.md, "Using your S3 tools with
 * the embedded store"): the embedded store's endpoint and key pair, named as AWS tools name them.
 * The embedded store serves s3 workspaces whenever no external bucket is configured, on PGlite
 * and PostgreSQL alike; with EASEL_S3_BUCKET set it holds nothing of theirs, so the command says
 * so and exits 2 rather than print keys to a store no workspace uses.
 */
export const storageCredentials = {
  usage: USAGE,
  async run(db: Db, argv: string[], io: Output): Promise<void> {
    if (argv.length) throw new UsageError(`storage credentials takes no arguments\nusage: ${USAGE}`);
    const external = externalS3Settings();
    if (external) {
      throw new UsageError(
        `storage credentials: this deployment keeps s3 workspaces' files in the bucket "${external.bucket}" (EASEL_S3_BUCKET), not in the embedded store.\n` +
          "Use that bucket's own endpoint and credentials (EASEL_S3_ENDPOINT, EASEL_S3_ACCESS_KEY_ID…); see docs/storage.md.",
      );
    }
    const settings = await embeddedS3Settings(serverBaseUrl(), db);
    // embeddedS3Settings always carries the instance's generated pair.
    const credentials = settings.credentials!;
    io.out(`endpoint: ${settings.endpoint}`);
    io.out(`region: ${settings.region}`);
    io.out(`access_key_id: ${credentials.accessKeyId}`);
    io.out(`secret_access_key: ${credentials.secretAccessKey}`);
  },
};
