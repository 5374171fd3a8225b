import { isValidBucketName } from "../disk/layout";
import { bucketExists, compareKeys, createBucket, deleteBucket, deleteObject, listAllObjects, listBuckets, type ObjectRecord } from "../disk/objects";
import { childElements, childText, MalformedXmlError, parseXml, xmlDocument } from "../xml";
import { readXmlBody } from "./body";
import type { S3Call } from "./call";
import { S3Error, s3Errors } from "./errors";
import { quoted } from "./object-ops";
import { xmlAnswer } from "./xml-answer";

const OWNER = { ID: "easel", DisplayName: "easel" };
/** The store has no regions; it answers as the default one so region-aware clients sign for it. */
export const STORE_REGION = "us-east-1";

/** GET / */
export async function listAllBuckets({ lay }: S3Call): Promise<Response> {
  const buckets = await listBuckets(lay);
  return xmlAnswer(xmlDocument("ListAllMyBucketsResult", { Owner: OWNER, Buckets: { Bucket: buckets.map((b) => ({ Name: b.name, CreationDate: b.created })) } }));
}

/** PUT /bucket */
export async function putBucket({ lay, bucket, now }: S3Call): Promise<Response> {
  if (!isValidBucketName(bucket)) throw new S3Error("InvalidBucketName", "The specified bucket is not valid.", 400, { BucketName: bucket });
  if ((await createBucket(lay, bucket, now)) === "exists") {
    throw new S3Error("BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.", 409, { BucketName: bucket });
  }
  return new Response(null, { status: 200, headers: { Location: `/${bucket}` } });
}

/** HEAD /bucket */
export async function headBucket({ lay, bucket }: S3Call): Promise<Response> {
  if (!(await bucketExists(lay, bucket))) throw s3Errors.noSuchBucket(bucket);
  return new Response(null, { status: 200, headers: { "x-amz-bucket-region": STORE_REGION } });
}

/** GET /bucket?location */
export async function bucketLocation({ lay, bucket }: S3Call): Promise<Response> {
  if (!(await bucketExists(lay, bucket))) throw s3Errors.noSuchBucket(bucket);
  return xmlAnswer(xmlDocument("LocationConstraint", {}));
}

/** DELETE /bucket: only an empty bucket can go. */
export async function removeBucket({ lay, bucket }: S3Call): Promise<Response> {
  if (!(await bucketExists(lay, bucket))) throw s3Errors.noSuchBucket(bucket);
  if ((await deleteBucket(lay, bucket)) === "not_empty") {
    throw new S3Error("BucketNotEmpty", "The bucket you tried to delete is not empty", 409, { BucketName: bucket });
  }
  return new Response(null, { status: 204 });
}

type Page = { contents: ObjectRecord[]; prefixes: string[]; truncated: boolean; last: string | null };

/**
 * One page of a listing: keys after `after` under `prefix`, rolled up at `delimiter` into common
 * prefixes (each counts as one entry). When `after` is itself a common prefix, the keys under it
 * were already summarised and are skipped.
 */
export function listPage(all: ObjectRecord[], opts: { prefix: string; delimiter: string; after: string; maxKeys: number }): Page {
  const contents: ObjectRecord[] = [];
  const prefixes: string[] = [];
  let last: string | null = null;
  let truncated = false;
  // max-keys=0 asks for no entries: S3 answers an empty page that is not truncated.
  if (opts.maxKeys <= 0) return { contents, prefixes, truncated, last };
  const skipUnder = opts.delimiter && opts.after.endsWith(opts.delimiter) ? opts.after : null;
  for (const record of all) {
    const key = record.key;
    if (!key.startsWith(opts.prefix) || compareKeys(key, opts.after) <= 0) continue;
    if (skipUnder && key.startsWith(skipUnder)) continue;
    const cut = opts.delimiter ? key.indexOf(opts.delimiter, opts.prefix.length) : -1;
    const entry = cut >= 0 ? key.slice(0, cut + opts.delimiter.length) : key;
    if (cut >= 0 && entry === prefixes[prefixes.length - 1]) continue;
    if (contents.length + prefixes.length >= opts.maxKeys) {
      truncated = true;
      break;
    }
    if (cut >= 0) prefixes.push(entry);
    else contents.push(record);
    last = entry;
  }
  return { contents, prefixes, truncated, last };
}

/** GET /bucket (ListObjects) and GET /bucket?list-type=2 (ListObjectsV2) */
export async function listObjects({ lay, bucket, url }: S3Call): Promise<Response> {
  const q = url.searchParams;
  const v2 = q.get("list-type") === "2";
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") ?? "";
  const maxKeys = Math.min(1000, Math.max(0, Number(q.get("max-keys") ?? 1000)));
  if (!Number.isInteger(maxKeys)) throw s3Errors.invalidArgument("max-keys must be an integer");
  const urlEncode = q.get("encoding-type") === "url";
  const enc = (s: string) => (urlEncode ? encodeURIComponent(s).replace(/%2F/g, "/") : s);
  const token = q.get("continuation-token");
  const after = v2 ? (token !== null ? decodeToken(token) : (q.get("start-after") ?? "")) : (q.get("marker") ?? "");
  const page = listPage(await listAllObjects(lay, bucket), { prefix, delimiter, after, maxKeys });
  const common = {
    Name: bucket,
    Prefix: enc(prefix),
    Delimiter: delimiter ? enc(delimiter) : undefined,
    MaxKeys: maxKeys,
    EncodingType: urlEncode ? "url" : undefined,
    IsTruncated: page.truncated,
  };
  const contents = page.contents.map((r) => ({ Key: enc(r.key), LastModified: r.lastModified, ETag: quoted(r.etag), Size: r.size, StorageClass: "STANDARD" }));
  const commonPrefixes = page.prefixes.map((p) => ({ Prefix: enc(p) }));
  if (v2) {
    return xmlAnswer(
      xmlDocument("ListBucketResult", {
        ...common,
        KeyCount: contents.length + commonPrefixes.length,
        ContinuationToken: token ?? undefined,
        NextContinuationToken: page.truncated && page.last !== null ? encodeToken(page.last) : undefined,
        StartAfter: q.get("start-after") !== null ? enc(q.get("start-after") as string) : undefined,
        Contents: contents,
        CommonPrefixes: commonPrefixes,
      }, 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'),
    );
  }
  return xmlAnswer(
    xmlDocument("ListBucketResult", {
      ...common,
      Marker: enc(q.get("marker") ?? ""),
      NextMarker: page.truncated && delimiter && page.last !== null ? enc(page.last) : undefined,
      Contents: contents.map((c) => ({ ...c, Owner: OWNER })),
      CommonPrefixes: commonPrefixes,
    }, 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'),
  );
}

const encodeToken = (after: string) => Buffer.from(after, "utf8").toString("base64url");
function decodeToken(token: string): string {
  const after = Buffer.from(token, "base64url").toString("utf8");
  if (encodeToken(after) !== token) throw s3Errors.invalidArgument("The continuation token provided is incorrect");
  return after;
}

/** POST /bucket?delete: up to 1,000 keys in one request. */
export async function deleteObjects(call: S3Call): Promise<Response> {
  if (!(await bucketExists(call.lay, call.bucket))) throw s3Errors.noSuchBucket(call.bucket);
  const { quiet, keys } = await readDeleteDocument(await readXmlBody(call.req, call.payload, { checksum: true }));
  if (!keys.length || keys.length > MAX_DELETE_KEYS || keys.some((k) => k === null)) throw s3Errors.malformedXml();
  const deleted: { Key: string }[] = [];
  for (const key of keys as string[]) {
    await deleteObject(call.lay, call.bucket, key);
    deleted.push({ Key: key });
  }
  return xmlAnswer(xmlDocument("DeleteResult", { Deleted: quiet ? [] : deleted }, 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'));
}

const MAX_DELETE_KEYS = 1000;
/** Elements of the largest valid Delete: Delete, Quiet, and per Object its Key, VersionId, ETag, LastModifiedTime, Size. */
const MAX_DELETE_ELEMENTS = 2 + MAX_DELETE_KEYS * 6;

async function readDeleteDocument(body: string): Promise<{ quiet: boolean; keys: (string | null)[] }> {
  try {
    const doc = await parseXml(body, { root: "Delete", maxElements: MAX_DELETE_ELEMENTS });
    return { quiet: childText(doc, "Quiet") === "true", keys: childElements(doc, "Object").map((o) => childText(o, "Key")) };
  } catch (err) {
    throw err instanceof MalformedXmlError ? s3Errors.malformedXml() : err;
  }
}
