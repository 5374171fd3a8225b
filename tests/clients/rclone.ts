import fs from "node:fs";
import path from "node:path";
import { boundTool, requireTool, type StoreCredentials, type Tool } from "./clients";

/** rclone's multipart part size here: a 100 MiB file goes up in exactly 20 parts. */
export const RCLONE_CHUNK_MIB = 5;

/**
 * rclone with a config file of its own (RCLONE_CONFIG) naming one remote, `easel`, at the store.
 * Files above 10 MiB go multipart (rclone's default cutoff, 200 MiB, would send 100 MiB in one
 * PUT). One attempt per command: a failure shows at once rather than after rclone's retries.
 */
export function rcloneFor(credentials: StoreCredentials, work: string): Tool {
  const bin = requireTool("rclone");
  const home = path.join(work, "rclone-home");
  fs.mkdirSync(home, { recursive: true });
  const config = path.join(home, "rclone.conf");
  fs.writeFileSync(
    config,
    [
      "[easel]",
      "type = s3",
      "provider = Other",
      `endpoint = ${credentials.endpoint}`,
      `region = ${credentials.region}`,
      `access_key_id = ${credentials.accessKeyId}`,
      `secret_access_key = ${credentials.secretAccessKey}`,
      "force_path_style = true",
      "upload_cutoff = 10Mi",
      `chunk_size = ${RCLONE_CHUNK_MIB}Mi`,
      "",
    ].join("\n"),
  );
  return boundTool(bin, { HOME: home, RCLONE_CONFIG: config }, ["--retries", "1", "--low-level-retries", "1"]);
}

/** `rclone lsf -R --files-only`: every file's path under the remote path, sorted. */
export async function remoteFiles(rclone: Tool, remotePath: string): Promise<string[]> {
  const r = await rclone.ok("lsf", "-R", "--files-only", remotePath);
  return r.stdout.split("\n").filter(Boolean).sort();
}
