import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ListBucketsCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { systemClock } from "../../lib/clock";
import type { Db } from "../../lib/db";
import { openDb, type DbHandle } from "../../lib/db/client";
import { embeddedS3Credentials } from "../../lib/objectstore/identity";
import { startS3Store, type StoreServer } from "../../lib/objectstore/testing/fixtures";
import { testDb } from "../helpers/db";

/**
 * `npm run easel -- storage credentials` as its own process, against the database the suite runs
 * on: on PGlite a server in this process owns the data dir (as in cli.test.ts), on PostgreSQL the
 * CLI connects with DATABASE_URL. The printed keys are then used by the AWS SDK against the
 * embedded store's S3 handler, which verifies with the keys stored in that same database.
 */
const target = inject("testDatabase");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-cli-creds-"));
const storeRoot = fs.mkdtempSync(path.join(os.tmpdir(), "easel-cli-creds-store-"));
let server: DbHandle | null = null;
let db: Db;
let store: StoreServer;

const STORAGE_VARS = ["EASEL_PUBLIC_URL", "PORT", "EASEL_S3_BUCKET", "EASEL_S3_ENDPOINT", "EASEL_S3_ACCESS_KEY_ID", "EASEL_S3_SECRET_ACCESS_KEY", "EASEL_S3_REGION"];

function easel(vars: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [...STORAGE_VARS, "DATABASE_URL"]) delete env[name];
  if (target.kind === "postgres") env.DATABASE_URL = target.url;
  else env.EASEL_DATA_DIR = dataDir;
  Object.assign(env, vars);
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { env, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `key: value` lines of the command's output. */
function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.trim().split("\n").map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
}

const sdk = (endpoint: string, region: string, accessKeyId: string, secretAccessKey: string) =>
  new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
  });

beforeAll(async () => {
  if (target.kind === "postgres") db = (await testDb()).db;
  else {
    server = await openDb({ dataDir, role: "server" });
    db = server.db;
  }
  store = await startS3Store({ root: storeRoot, credentials: () => embeddedS3Credentials(db), clock: systemClock });
});

afterAll(async () => {
  await store?.close();
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(storeRoot, { recursive: true, force: true });
});

describe(`npm run easel -- storage credentials (${target.kind})`, () => {
  it("prints the embedded store's endpoint, region and key pair, and an S3 client signing with them is let in", async () => {
    const r = await easel({ PORT: "4123" }, "storage", "credentials");
    expect(r.code, r.stderr).toBe(0);
    const printed = fields(r.stdout);
    expect(Object.keys(printed)).toEqual(["endpoint", "region", "access_key_id", "secret_access_key"]);
    expect(printed.endpoint).toBe("http://localhost:4123/storage/s3");
    expect(printed.region).toBe("us-east-1");
    expect(printed).toMatchObject(await embeddedS3Credentials(db).then((c) => ({ access_key_id: c.accessKeyId, secret_access_key: c.secretAccessKey })));

    // The same request signed with the printed keys is accepted; with the secret altered, refused.
    const good = sdk(store.endpoint, printed.region, printed.access_key_id, printed.secret_access_key);
    const listed = await good.send(new ListBucketsCommand({}));
    expect(listed.$metadata.httpStatusCode).toBe(200);
    const wrong = sdk(store.endpoint, printed.region, printed.access_key_id, `${printed.secret_access_key}x`);
    await expect(wrong.send(new ListBucketsCommand({}))).rejects.toMatchObject({ name: "SignatureDoesNotMatch", $metadata: { httpStatusCode: 403 } });
    good.destroy();
    wrong.destroy();
  }, 120_000);

  it("puts the endpoint on EASEL_PUBLIC_URL when one is configured", async () => {
    const r = await easel({ EASEL_PUBLIC_URL: "https://assets.example.com/" }, "storage", "credentials");
    expect(r.code, r.stderr).toBe(0);
    expect(fields(r.stdout).endpoint).toBe("https://assets.example.com/storage/s3");
  }, 120_000);

  it("with an external bucket configured, prints no keys, says why and exits 2", async () => {
    const r = await easel({ EASEL_S3_BUCKET: "company-assets" }, "storage", "credentials");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/"company-assets" \(EASEL_S3_BUCKET\), not in the embedded store/);
    expect((await easel({}, "storage", "credentials", "--json")).code).toBe(2);
  }, 120_000);
});
