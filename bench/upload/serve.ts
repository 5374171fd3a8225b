/**
 * One storage server for the upload benchmark, in its own process so its memory and CPU are
 * measured alone: the embedded store (the same handler app/storage/s3 serves) or s3rver.
 * Prints `READY <origin>` once listening.
 *
 *   node --import tsx bench/upload/serve.ts embedded <dir> <accessKeyId> <secretAccessKey>
 *   node --import tsx bench/upload/serve.ts s3rver <dir>
 */
import { systemClock } from "../../lib/clock";
import { layout } from "../../lib/objectstore/disk/layout";
import { S3_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { handleS3Request } from "../../lib/objectstore/s3/handler";
import { listen } from "../../lib/objectstore/testing/node-server";
import { startS3rver } from "../../lib/objectstore/testing/s3rver";

const [kind, dir, accessKeyId, secretAccessKey] = process.argv.slice(2);

if (kind === "embedded") {
  const credentials = { accessKeyId, secretAccessKey };
  const server = await listen((req) => handleS3Request(req, { lay: layout(dir), credentials: async () => credentials, clock: systemClock, mountPath: S3_MOUNT_PATH }));
  console.log(`READY ${server.origin}${S3_MOUNT_PATH}`);
} else if (kind === "s3rver") {
  const server = await startS3rver(dir, ["easel"]);
  console.log(`READY ${server.origin}`);
} else {
  console.error("usage: serve.ts embedded|s3rver <dir> [accessKeyId secretAccessKey]");
  process.exit(2);
}

// Exit cleanly when the benchmark stops this server (so profilers and handles close properly).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
