import crypto from "node:crypto";
import { CopyObjectCommand, CreateBucketCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headObject } from "../disk/objects";
import { md5Hex, movableClock, startS3Store, tempDir, type StoreServer } from "../testing/fixtures";

// A presigned URL allows exactly its method, key and signed headers (contract §12): every x-amz-*
// header that asks the store to do something is refused unless the signature covers it, and a
// server-side copy never crosses workspaces, whoever signed it.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
let store: StoreServer;
let s3: S3Client;

const B_SECRET = Buffer.from("workspace B's private bytes");
const B_KEY = "ws/2/originals/secret";

/** Each header a browser holding a presigned PUT could add, with a value S3 would act on. */
const UNSIGNED_HEADERS: [string, string][] = [
  ["x-amz-copy-source", `/easel/${B_KEY}`],
  ["x-amz-metadata-directive", "REPLACE"],
  ["x-amz-acl", "public-read"],
  ["x-amz-tagging", "owner=mallory"],
  ["x-amz-storage-class", "GLACIER"],
  ["x-amz-checksum-sha256", crypto.createHash("sha256").update("x").digest("base64")],
  ["x-amz-checksum-crc32", "AAAAAA=="],
  ["x-amz-server-side-encryption", "AES256"],
];

const presignPut = (Key: string) => getSignedUrl(s3, new PutObjectCommand({ Bucket: "easel", Key }), { expiresIn: 900, signingDate: clock() });

async function failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  throw new Error("expected the call to fail");
}

const bytesOf = async (Key: string) => Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: "easel", Key }))).Body!.transformToByteArray());

beforeAll(async () => {
  store = await startS3Store({ root: tempDir("signed-headers"), credentials: async () => credentials, clock });
  s3 = new S3Client({ endpoint: store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
  await s3.send(new CreateBucketCommand({ Bucket: "other" }));
  await s3.send(new PutObjectCommand({ Bucket: "easel", Key: B_KEY, Body: B_SECRET }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
});

describe("a presigned PUT with an x-amz-* header it did not sign", () => {
  it.each(UNSIGNED_HEADERS)("%s: 403 AccessDenied, the object is never created", async (name, value) => {
    const key = `ws/1/originals/new-${name}`;
    const url = await presignPut(key);
    const res = await fetch(url, { method: "PUT", body: "attacker bytes", headers: { [name]: value } });
    expect(res.status).toBe(403);
    const xml = await res.text();
    expect(xml).toContain("<Code>AccessDenied</Code>");
    expect(xml).toContain("<Message>There were headers present in the request which were not signed</Message>");
    expect(xml).toContain(`<HeadersNotSigned>${name}</HeadersNotSigned>`);
    expect(await headObject(store.lay, "easel", key)).toBeNull();
    // The URL itself was good: without the header it uploads.
    const plain = await fetch(url, { method: "PUT", body: "honest bytes" });
    expect(plain.status).toBe(200);
    expect(await bytesOf(key)).toEqual(Buffer.from("honest bytes"));
  });

  it.each(UNSIGNED_HEADERS)("%s: 403 on a key that holds an object, which keeps its bytes and metadata", async (name, value) => {
    const key = `ws/1/originals/kept-${name}`;
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: key, Body: "original", ContentType: "image/png" }));
    const before = await headObject(store.lay, "easel", key);
    const res = await fetch(await presignPut(key), { method: "PUT", body: "attacker bytes", headers: { [name]: value, "content-type": "text/html" } });
    expect(res.status).toBe(403);
    expect(await headObject(store.lay, "easel", key)).toEqual(before);
    expect(await bytesOf(key)).toEqual(Buffer.from("original"));
  });

  it("names every unsigned header at once, and B's object is untouched", async () => {
    const res = await fetch(await presignPut("ws/1/originals/many"), { method: "PUT", body: "x", headers: { "x-amz-acl": "public-read", "x-amz-copy-source": `/easel/${B_KEY}` } });
    expect(res.status).toBe(403);
    const listed = /<HeadersNotSigned>([^<]*)<\/HeadersNotSigned>/.exec(await res.text())?.[1].split(", ").sort();
    expect(listed).toEqual(["x-amz-acl", "x-amz-copy-source"]);
    expect(await bytesOf(B_KEY)).toEqual(B_SECRET);
  });

  it("accepts x-amz-* headers the URL signed, and the unsigned payload hash S3 also accepts", async () => {
    const body = Buffer.from("checked bytes");
    const checksum = crypto.createHash("sha256").update(body).digest("base64");
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: "easel", Key: "ws/1/originals/signed-header", ChecksumSHA256: checksum }), {
      expiresIn: 900,
      signingDate: clock(),
      unhoistableHeaders: new Set(["x-amz-checksum-sha256"]),
    });
    expect(new URL(url).searchParams.get("X-Amz-SignedHeaders")).toContain("x-amz-checksum-sha256");
    const res = await fetch(url, { method: "PUT", body, headers: { "x-amz-checksum-sha256": checksum, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" } });
    expect(res.status).toBe(200);
    expect(await bytesOf("ws/1/originals/signed-header")).toEqual(body);
  });
});

describe("header-signed requests (the store's own key pair)", () => {
  // (Server-side encryption headers are signed too, and refused: s3-writes.test.ts.)
  it("the AWS SDK signs the x-amz-* headers it sends: ACL, tagging, storage class, checksum, metadata", async () => {
    const Body = Buffer.from("sdk bytes");
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: "easel",
        Key: "ws/1/originals/sdk",
        Body,
        ACL: "private",
        Tagging: "a=b",
        StorageClass: "STANDARD",
        ChecksumSHA256: crypto.createHash("sha256").update(Body).digest("base64"),
        Metadata: { who: "easel" },
      }),
    );
    expect(put.ETag).toBe(`"${md5Hex(Body)}"`);
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "ws/1/originals/sdk" }))).Metadata).toEqual({ who: "easel" });
  });

  it("an x-amz-* header added after signing is refused as on S3", async () => {
    const signer = new SignatureV4({ credentials, region: "us-east-1", service: "s3", sha256: Sha256 as never, uriEscapePath: false, applyChecksum: false });
    const url = new URL(`${store.endpoint}/easel/ws/1/originals/late-header`);
    const signed = await signer.sign(
      { method: "PUT", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query: {}, headers: { host: url.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" }, body: "late" },
      { signingDate: clock() },
    );
    const res = await fetch(url, { method: "PUT", body: "late", headers: { ...signed.headers, "x-amz-acl": "public-read" } });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("<HeadersNotSigned>x-amz-acl</HeadersNotSigned>");
    expect(await headObject(store.lay, "easel", "ws/1/originals/late-header")).toBeNull();
    // The same signature without the extra header is accepted: nothing else was wrong with it.
    expect((await fetch(url, { method: "PUT", body: "late", headers: signed.headers })).status).toBe(200);
  });
});

describe("CopyObject stays inside one workspace of one bucket", () => {
  it("refuses a copy from another workspace, even signed with the store's key pair, and changes nothing", async () => {
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "ws/1/originals/stolen", CopySource: `easel/${B_KEY}` })))).toEqual({ name: "AccessDenied", status: 403 });
    expect(await headObject(store.lay, "easel", "ws/1/originals/stolen")).toBeNull();

    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "ws/1/originals/mine", Body: "mine" }));
    const before = await headObject(store.lay, "easel", "ws/1/originals/mine");
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "ws/1/originals/mine", CopySource: `easel/${B_KEY}` })))).toEqual({ name: "AccessDenied", status: 403 });
    expect(await headObject(store.lay, "easel", "ws/1/originals/mine")).toEqual(before);
    // A workspace whose id starts like another's is another workspace.
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "ws/22/originals/x", CopySource: `easel/${B_KEY}` })))).toEqual({ name: "AccessDenied", status: 403 });
  });

  it("refuses copies into or out of the workspaces, and from another bucket", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "loose/object", Body: "loose" }));
    await s3.send(new PutObjectCommand({ Bucket: "other", Key: "ws/1/originals/elsewhere", Body: "other bucket" }));
    const attempts = [
      { Bucket: "easel", Key: "ws/1/originals/from-loose", CopySource: "easel/loose/object" },
      { Bucket: "easel", Key: "loose/from-b", CopySource: `easel/${B_KEY}` },
      { Bucket: "easel", Key: "ws/1/originals/from-other-bucket", CopySource: "other/ws/1/originals/elsewhere" },
      { Bucket: "other", Key: "ws/2/originals/secret", CopySource: `easel/${B_KEY}` },
    ];
    for (const a of attempts) {
      expect(await failure(s3.send(new CopyObjectCommand(a)))).toEqual({ name: "AccessDenied", status: 403 });
      expect(await headObject(store.lay, a.Bucket, a.Key)).toBeNull();
    }
  });

  it("copies within a workspace (and among keys outside every workspace) as before", async () => {
    await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "ws/2/originals/secret-copy", CopySource: `easel/${B_KEY}` }));
    expect(await bytesOf("ws/2/originals/secret-copy")).toEqual(B_SECRET);
    await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "loose/copy", CopySource: "easel/loose/object" }));
    expect(await bytesOf("loose/copy")).toEqual(Buffer.from("loose"));
  });
});

class Sha256 {
  private h: crypto.Hash | crypto.Hmac;
  constructor(secret?: string | Uint8Array) {
    this.h = secret ? crypto.createHmac("sha256", secret) : crypto.createHash("sha256");
  }
  update(data: string | Uint8Array) {
    this.h.update(data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
  reset() {}
}
