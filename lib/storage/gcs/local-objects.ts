import fs from "node:fs/promises";
import { Readable } from "node:stream";
import type { Clock } from "../../clock";
import { DomainError } from "../../errors";
import type { Layout } from "../../objectstore/disk/layout";
import { commitObject, createBucket, deleteObject, headObject, openObject, type StoredHeaders } from "../../objectstore/disk/objects";
import { receiveToTemp, type Body } from "../../objectstore/disk/receive";
import type { StorageDriver } from "../types";

export type ObjectOps = Pick<StorageDriver, "head" | "md5" | "read" | "write" | "copy" | "delete"> & {
  /** Makes sure the bucket exists before an upload URL is handed out. */
  ready(): Promise<void>;
};

const MAX_OBJECT_BYTES = 5 * 1024 ** 4;
const missing = (what: string) => new DomainError("storage_object_not_found", `${what}: the object is not in storage`);

/**
 * Object access for gcs workspaces on the embedded store: the same files the store's GCS endpoint
 * serves, read and written directly (this process owns them), with the md5 recorded at upload.
 */
export function localObjects(lay: Layout, bucket: string, clock: Clock): ObjectOps {
  let ready: Promise<unknown> | null = null;
  const ensureBucket = () =>
    (ready ??= createBucket(lay, bucket, clock()).catch((err) => {
      ready = null;
      throw err;
    }));

  const store = async (key: string, body: Body, size: number | null, meta: { contentType: string; headers?: StoredHeaders; userMetadata?: Record<string, string> }) => {
    await ensureBucket();
    const received = await receiveToTemp(lay, body, { maxBytes: MAX_OBJECT_BYTES, expectedLength: size, sha256: false });
    const md5 = received.md5.toString("hex");
    try {
      await commitObject(lay, bucket, key, [received], { size: received.size, md5, etag: md5, contentType: meta.contentType, headers: meta.headers ?? {}, userMetadata: meta.userMetadata ?? {} }, clock());
    } catch (err) {
      await fs.rm(received.path, { force: true });
      throw err;
    }
  };

  return {
    async ready() {
      await ensureBucket();
    },
    async head(key) {
      await ensureBucket();
      const record = await headObject(lay, bucket, key);
      return record ? { size: record.size, etag: record.etag, contentType: record.contentType } : null;
    },
    async md5(key) {
      await ensureBucket();
      const record = await headObject(lay, bucket, key);
      if (!record) throw missing("md5");
      return record.md5;
    },
    async read(key, range) {
      await ensureBucket();
      const record = await headObject(lay, bucket, key);
      if (!record) throw missing("read");
      if (range && range.start >= record.size && record.size > 0) throw new DomainError("validation_failed", "The range starts beyond the end of the object", { field: "range" });
      const opened = await openObject(lay, bucket, key, range ? { start: range.start, end: Math.min(range.end ?? record.size - 1, record.size - 1) } : undefined, record);
      if (!opened) throw missing("read");
      return Readable.toWeb(opened.stream) as unknown as ReadableStream<Uint8Array>;
    },
    async write(key, body, contentType) {
      if (Buffer.isBuffer(body)) await store(key, (async function* () { yield body; })(), body.length, { contentType });
      else await store(key, body, null, { contentType });
    },
    async copy(fromKey, toKey) {
      await ensureBucket();
      const opened = await openObject(lay, bucket, fromKey);
      if (!opened) throw missing("copy");
      try {
        await store(toKey, opened.stream, opened.record.size, opened.record);
      } finally {
        opened.stream.destroy();
      }
    },
    async delete(key) {
      await ensureBucket();
      await deleteObject(lay, bucket, key);
    },
  };
}
