import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { SignatureV4 } from "@smithy/signature-v4";
import { beforeAll, describe, expect, it } from "vitest";
import { layout, type Layout } from "../disk/layout";
import { S3_MOUNT_PATH } from "../mounts";
import { movableClock, tempDir } from "../testing/fixtures";
import { handleS3Request } from "./handler";

// CompleteMultipartUpload and DeleteObjects bodies an attacker or a broken client sends: each is
// answered 400 MalformedXML in S3's error format, and leaves every file of the store as it was.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
const ORIGIN = "http://easel.test";
let lay: Layout;
let root: string;

class NodeSha256 {
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
const signer = new SignatureV4({ credentials, region: "us-east-1", service: "s3", sha256: NodeSha256 as never, uriEscapePath: false, applyChecksum: false });

async function s3(method: string, key: string, query: Record<string, string>, body: string | null = null): Promise<Response> {
  const pathname = `${S3_MOUNT_PATH}/easel${key ? `/${key}` : ""}`;
  const sha = crypto.createHash("sha256").update(body ?? "").digest("hex");
  const signed = await signer.sign(
    { method, protocol: "http:", hostname: "easel.test", path: pathname, query, headers: { host: "easel.test", "x-amz-content-sha256": sha }, body },
    { signingDate: clock() },
  );
  const qs = new URLSearchParams(query).toString();
  const req = new Request(`${ORIGIN}${pathname}${qs ? `?${qs}` : ""}`, { method, headers: signed.headers as Record<string, string>, body: body ?? undefined });
  return handleS3Request(req, { lay, credentials: async () => credentials, clock, mountPath: S3_MOUNT_PATH });
}

/** Every file under the store's root with its size and mtime. */
function storeFiles(): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const p = path.join(e.parentPath, e.name);
      const st = fs.statSync(p);
      return `${path.relative(root, p)} ${st.size} ${st.mtimeMs}`;
    })
    .sort();
}

let uploadId = "";
let partEtag = "";
const part = (etag: string, n: string | number = 1) => `<Part><PartNumber>${n}</PartNumber><ETag>${etag}</ETag></Part>`;
const escapedEtag = () => partEtag.replace(/"/g, "&quot;");

beforeAll(async () => {
  root = tempDir("hostile-xml");
  lay = layout(root);
  expect((await s3("PUT", "", {})).status).toBe(200);
  expect((await s3("PUT", "keep/a.txt", {}, "kept")).status).toBe(200);
  const created = await (await s3("POST", "mp/object.bin", { uploads: "" })).text();
  uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)![1];
  const put = await s3("PUT", "mp/object.bin", { partNumber: "1", uploadId }, "part one");
  expect(put.status).toBe(200);
  partEtag = put.headers.get("etag")!;
});

const bomb = `<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>`;

// Each document is otherwise a valid one naming the real part (or the kept object), so a reader
// that let the hostile part through would complete the upload (or delete the object).
const hostile = (wrap: (inner: string) => string, inner: (good: string) => string, good: () => string): [string, () => string][] => [
  ["a reference to a code point past U+10FFFF", () => wrap(inner(`${good()}&#x110000;`))],
  ["a reference to NUL", () => wrap(inner(`${good()}&#0;`))],
  ["a reference to a surrogate", () => wrap(inner(`${good()}&#xDC00;`))],
  ["an undeclared entity", () => wrap(inner(`${good()}&ent;`))],
  ["a raw control character", () => wrap(inner(`${good()}\u0002`))],
  ["an entity bomb", () => `${bomb}${wrap(inner(`${good()}&d;`))}`],
  ["an external entity", () => `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${wrap(inner(`${good()}&e;`))}`],
  ["a DOCTYPE with no entities", () => `<!DOCTYPE x>${wrap(inner(good()))}`],
  ["nesting 10,000 levels deep", () => wrap(`${inner(good())}${"<X>".repeat(10_000)}${"</X>".repeat(10_000)}`)],
  ["a million empty elements", () => wrap(`${inner(good())}${"<X/>".repeat(1_000_000)}`)],
  ["mismatched end tags", () => wrap(`${inner(good())}<X><Y></X></Y>`)],
  ["a second root", () => `${wrap(inner(good()))}${wrap("")}`],
];

describe("hostile CompleteMultipartUpload bodies", () => {
  const cases = hostile(
    (inner) => `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${inner}</CompleteMultipartUpload>`,
    (etag) => part(etag),
    escapedEtag,
  );

  it.each(cases)("%s: 400 MalformedXML, the store unchanged", async (_, body) => {
    const before = storeFiles();
    const res = await s3("POST", "mp/object.bin", { uploadId }, body());
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("<Code>MalformedXML</Code>");
    expect(storeFiles()).toEqual(before);
  });

  it("a repeated ETag in one part is malformed too; after every refusal the upload completes", async () => {
    const res = await s3("POST", "mp/object.bin", { uploadId }, `<CompleteMultipartUpload>${part(`${escapedEtag()}</ETag><ETag>${escapedEtag()}`)}</CompleteMultipartUpload>`);
    expect(await res.text()).toContain("<Code>MalformedXML</Code>");
    const done = await s3("POST", "mp/object.bin", { uploadId }, `<CompleteMultipartUpload>${part(`<![CDATA[${partEtag}]]>`)}</CompleteMultipartUpload>`);
    expect(done.status, await done.clone().text()).toBe(200);
  });
});

describe("hostile DeleteObjects bodies", () => {
  const cases = hostile(
    (inner) => `<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>${inner}</Delete>`,
    (key) => `<Object><Key>${key}</Key></Object>`,
    () => "keep/a.txt",
  );

  it.each(cases)("%s: 400 MalformedXML, the store unchanged", async (_, body) => {
    const before = storeFiles();
    const res = await s3("POST", "", { delete: "" }, body());
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("<Code>MalformedXML</Code>");
    expect(storeFiles()).toEqual(before);
  });

  it("more than 1,000 keys is malformed; a valid request still deletes", async () => {
    const many = await s3("POST", "", { delete: "" }, `<Delete>${"<Object><Key>x</Key></Object>".repeat(1001)}</Delete>`);
    expect(await many.text()).toContain("<Code>MalformedXML</Code>");
    const res = await s3("POST", "", { delete: "" }, "<Delete><Object><Key>keep/a.txt</Key></Object></Delete>");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<Deleted><Key>keep/a.txt</Key></Deleted>");
    expect((await s3("HEAD", "keep/a.txt", {})).status).toBe(404);
  });
});
