import crypto from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Bucket } from "@google-cloud/storage";
import { DomainError } from "../../errors";
import { log } from "../../log/logger.mjs";
import type { ObjectOps } from "./local-objects";

function isNotFound(err: unknown): boolean {
  return (err as { code?: number })?.code === 404;
}

function toStorageError(err: unknown, what: string): DomainError {
  if (err instanceof DomainError) return err;
  if (isNotFound(err)) return new DomainError("storage_object_not_found", `${what}: the object is not in storage`);
  log().error({ component: "storage", backend: "gcs", operation: what, err }, "storage call failed; answered storage_unavailable");
  return new DomainError("storage_unavailable", `${what}: storage is unavailable`);
}

/** Object access for gcs workspaces on Google Cloud Storage, through @google-cloud/storage's JSON API client. */
export function cloudObjects(bucket: Bucket): ObjectOps {
  const wrap = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw toStorageError(err, what);
    }
  };
  return {
    async ready() {
      // The bucket is provisioned with the Google Cloud project, not by Easel.
    },
    async head(key) {
      try {
        const [meta] = await bucket.file(key).getMetadata();
        return { size: Number(meta.size ?? 0), etag: String(meta.etag ?? ""), contentType: meta.contentType ?? null };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw toStorageError(err, "head");
      }
    },
    md5: (key) =>
      wrap("md5", async () => {
        const [meta] = await bucket.file(key).getMetadata();
        // GCS keeps an md5 for every object not assembled by compose; hash the bytes otherwise.
        if (meta.md5Hash) return Buffer.from(meta.md5Hash, "base64").toString("hex");
        const hash = crypto.createHash("md5");
        for await (const chunk of bucket.file(key).createReadStream()) hash.update(chunk as Buffer);
        return hash.digest("hex");
      }),
    read: (key, range) =>
      wrap("read", async () => {
        await bucket.file(key).getMetadata(); // a missing object fails here, not halfway through the stream
        const stream = bucket.file(key).createReadStream(range ? { start: range.start, end: range.end } : {});
        return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
      }),
    write: (key, body, contentType) =>
      wrap("write", async () => {
        if (Buffer.isBuffer(body)) await bucket.file(key).save(body, { contentType, resumable: false });
        else await pipeline(Readable.fromWeb(body as never), bucket.file(key).createWriteStream({ contentType, resumable: true }));
      }),
    copy: (fromKey, toKey) => wrap("copy", async () => void (await bucket.file(fromKey).copy(bucket.file(toKey)))),
    delete: (key) => wrap("delete", async () => void (await bucket.file(key).delete({ ignoreNotFound: true }))),
  };
}
