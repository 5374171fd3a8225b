import fs from "node:fs";
import path from "node:path";
import { boundTool, requireTool, type StoreCredentials, type Tool } from "./clients";

/** aws-cli's part size and threshold here (`5MB` is 5 MiB to aws-cli): a 20 MiB file goes up in 4 parts. */
export const AWS_CHUNK_MIB = 5;

/**
 * Debian's aws-cli v2 with config and credentials files of its own, path-style addressing, no
 * instance-metadata lookup, no pager and no retries; `--endpoint-url` is the store's. `env` adds to
 * its environment (AWS_DATA_PATH for a service model of our own).
 */
export function awsFor(credentials: StoreCredentials, work: string, env: Record<string, string> = {}): Tool {
  const bin = requireTool("aws");
  const home = path.join(work, "aws-home");
  fs.mkdirSync(home, { recursive: true });
  const config = path.join(home, "config");
  const shared = path.join(home, "credentials");
  fs.writeFileSync(
    config,
    [
      "[default]",
      `region = ${credentials.region}`,
      "max_attempts = 1",
      "s3 =",
      "  addressing_style = path",
      `  multipart_threshold = ${AWS_CHUNK_MIB}MB`,
      `  multipart_chunksize = ${AWS_CHUNK_MIB}MB`,
      "",
    ].join("\n"),
  );
  fs.writeFileSync(shared, ["[default]", `aws_access_key_id = ${credentials.accessKeyId}`, `aws_secret_access_key = ${credentials.secretAccessKey}`, ""].join("\n"));
  return boundTool(
    bin,
    { HOME: home, AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: shared, AWS_EC2_METADATA_DISABLED: "true", AWS_PAGER: "", ...env },
    ["--endpoint-url", credentials.endpoint],
  );
}
