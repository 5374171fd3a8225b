import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  boundTool,
  bucketName,
  headStoredObject,
  md5OfFile,
  MiB,
  requireTool,
  fileWorkDir,
  writeFileOfSize,
 
  type StoreCredentials,
  type Tool,
} from "./clients";

/**
 * s3cmd (Debian's 2.3.0) against the embedded store of a build: a multipart `put`, `ls`, a `get`
 * whose md5 check passes without a warning, `del` and `rb`.
 */
const CHUNK_MIB = 5;
const BIG_BYTES = 17 * MiB;
const BIG_KEY = "big files/seventeen MiB.bin";
const SMALL_KEY = "docs/ünïcødé résumé.txt";
const { credentials } = inject("clientsStore");
let work: { dir: string; remove: () => Promise<void> };
let s3cmd: Tool;
let big: string;
const bucket = bucketName("s3cmd");

/**
 * A config file of its own, path-style at the store (host_bucket without %(bucket)s), plain HTTP,
 * SigV4. host_base carries the endpoint's path (/storage/s3), which s3cmd puts before each request's path.
 */
function s3cmdFor(credentials: StoreCredentials, work: string): Tool {
  const bin = requireTool("s3cmd");
  const home = path.join(work, "s3cmd-home");
  fs.mkdirSync(home, { recursive: true });
  const endpoint = new URL(credentials.endpoint);
  const hostAndPath = `${endpoint.host}${endpoint.pathname.replace(/\/+$/, "")}`;
  const config = path.join(home, "s3cfg");
  fs.writeFileSync(
    config,
    [
      "[default]",
      `access_key = ${credentials.accessKeyId}`,
      `secret_key = ${credentials.secretAccessKey}`,
      `host_base = ${hostAndPath}`,
      `host_bucket = ${hostAndPath}`,
      `use_https = ${endpoint.protocol === "https:" ? "True" : "False"}`,
      "signature_v2 = False",
      `bucket_location = ${credentials.region}`,
      "",
    ].join("\n"),
  );
  return boundTool(bin, { HOME: home }, ["--config", config]);
}

beforeAll(async () => {
  work = await fileWorkDir("s3cmd");
  s3cmd = s3cmdFor(credentials, work.dir);
  big = path.join(work.dir, "big.bin");
  await writeFileOfSize(big, BIG_BYTES, "s3cmd big file");
  await fs.promises.writeFile(path.join(work.dir, "small.txt"), `${SMALL_KEY}\n`);
});

afterAll(async () => {
  await work?.remove();
});

describe("s3cmd with the embedded store", () => {
  it("makes a bucket and puts a 17 MiB file in 5 MiB parts", async () => {
    await s3cmd.ok("mb", `s3://${bucket}`);
    await s3cmd.ok("put", `--multipart-chunk-size-mb=${CHUNK_MIB}`, big, `s3://${bucket}/${BIG_KEY}`);
    const stored = await headStoredObject(credentials, bucket, BIG_KEY);
    expect(stored.ContentLength).toBe(BIG_BYTES);
    expect(stored.ETag).toMatch(new RegExp(`-${Math.ceil(BIG_BYTES / (CHUNK_MIB * MiB))}"$`));
  });

  it("puts a small file under a non-ASCII, space-containing key, and ls lists both", async () => {
    await s3cmd.ok("put", path.join(work.dir, "small.txt"), `s3://${bucket}/${SMALL_KEY}`);
    const top = (await s3cmd.ok("ls", `s3://${bucket}`)).stdout;
    expect(top).toContain(`DIR  s3://${bucket}/big files/`);
    expect(top).toContain(`DIR  s3://${bucket}/docs/`);
    const all = (await s3cmd.ok("ls", "--recursive", `s3://${bucket}`)).stdout;
    expect(all).toMatch(new RegExp(`\\s${BIG_BYTES}\\s+s3://${bucket}/${BIG_KEY}\\n`));
    expect(all).toContain(`s3://${bucket}/${SMALL_KEY}`);
  });

  it("gets both back byte for byte, its md5 check passing without a warning", async () => {
    const down = path.join(work.dir, "down.bin");
    const got = await s3cmd.ok("get", `s3://${bucket}/${BIG_KEY}`, down);
    expect(got.stderr).not.toMatch(/WARNING/);
    expect(await md5OfFile(down)).toBe(await md5OfFile(big));
    const small = path.join(work.dir, "small-down.txt");
    const gotSmall = await s3cmd.ok("get", `s3://${bucket}/${SMALL_KEY}`, small);
    expect(gotSmall.stderr).not.toMatch(/WARNING/);
    expect(await fs.promises.readFile(small, "utf8")).toBe(`${SMALL_KEY}\n`);
  });

  it("deletes both, lists nothing, and removes the bucket", async () => {
    await s3cmd.ok("del", `s3://${bucket}/${BIG_KEY}`, `s3://${bucket}/${SMALL_KEY}`);
    expect((await s3cmd.ok("ls", "--recursive", `s3://${bucket}`)).stdout).toBe("");
    await s3cmd.ok("rb", `s3://${bucket}`);
    expect((await s3cmd.ok("ls")).stdout).not.toContain(bucket);
  });
});
