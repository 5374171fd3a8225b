import crypto from "node:crypto";
import { DomainError } from "../../lib/errors";
import { MULTIPART_THRESHOLD, PART_SIZE, partCount } from "../../lib/storage/limits";
import type { ObjectInfo, PreparedUpload, StorageDriver } from "../../lib/storage/types";

/**
 * An in-memory StorageDriver for integration tests of domain code ("real database, fake side
 * effects"). Tests put bytes where a client would (`putObject`, `putPart`); `down = true`
 * simulates an unreachable store. The real drivers are tested against the embedded store and s3rver.
 */
export class MemoryStorage implements StorageDriver {
  readonly objects = new Map<string, { body: Buffer; contentType: string | null }>();
  readonly uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  down = false;

  constructor(readonly kind: "s3" | "gcs" = "s3") {}

  private check() {
    if (this.down) throw new DomainError("storage_unavailable", "storage is down (test)");
  }

  putObject(key: string, body: Buffer, contentType: string | null = null) {
    this.objects.set(key, { body, contentType });
  }

  putPart(uploadId: string, partNumber: number, body: Buffer) {
    const u = this.uploads.get(uploadId);
    if (!u) throw new Error(`no upload ${uploadId}`);
    u.parts.set(partNumber, body);
  }

  async prepareUpload(input: { key: string; size: number; contentType: string; expiresAt: Date }): Promise<PreparedUpload> {
    this.check();
    if (this.kind === "s3" && input.size >= MULTIPART_THRESHOLD) {
      const uploadId = crypto.randomUUID();
      this.uploads.set(uploadId, { key: input.key, parts: new Map() });
      const n = partCount(input.size);
      return { uploadUrl: `memory://${input.key}`, multipartUploadId: uploadId, partSize: PART_SIZE, partUrls: Array.from({ length: n }, (_, i) => `memory://${input.key}?part=${i + 1}`) };
    }
    return { uploadUrl: `memory://${input.key}`, multipartUploadId: null, partSize: null, partUrls: null };
  }

  async completeMultipart(input: { key: string; uploadId: string; expectedParts: number }) {
    this.check();
    const u = this.uploads.get(input.uploadId);
    if (!u) throw new DomainError("storage_object_not_found", "no such multipart upload");
    const parts: Buffer[] = [];
    for (let i = 1; i <= input.expectedParts; i++) {
      const p = u.parts.get(i);
      if (!p) throw new DomainError("storage_object_not_found", `part ${i} is missing`);
      parts.push(p);
    }
    this.objects.set(input.key, { body: Buffer.concat(parts), contentType: null });
    this.uploads.delete(input.uploadId);
  }

  async abortMultipart(input: { key: string; uploadId: string }) {
    this.uploads.delete(input.uploadId);
  }

  async head(key: string): Promise<ObjectInfo | null> {
    this.check();
    const o = this.objects.get(key);
    return o ? { size: o.body.length, etag: crypto.createHash("md5").update(o.body).digest("hex"), contentType: o.contentType } : null;
  }

  async md5(key: string) {
    this.check();
    const o = this.objects.get(key);
    if (!o) throw new DomainError("storage_object_not_found", key);
    return crypto.createHash("md5").update(o.body).digest("hex");
  }

  async read(key: string, range?: { start: number; end?: number }) {
    this.check();
    const o = this.objects.get(key);
    if (!o) throw new DomainError("storage_object_not_found", key);
    const body = range ? o.body.subarray(range.start, range.end === undefined ? undefined : range.end + 1) : o.body;
    return new Blob([new Uint8Array(body)]).stream() as ReadableStream<Uint8Array>;
  }

  async write(key: string, body: Buffer | ReadableStream<Uint8Array>, contentType: string) {
    this.check();
    const buf = Buffer.isBuffer(body) ? body : Buffer.from(await new Response(body).arrayBuffer());
    this.objects.set(key, { body: buf, contentType });
  }

  async copy(from: string, to: string) {
    const o = this.objects.get(from);
    if (!o) throw new DomainError("storage_object_not_found", from);
    this.objects.set(to, { ...o });
  }

  async delete(key: string) {
    this.objects.delete(key);
  }

  async signedReadUrl(key: string) {
    return `memory://${key}`;
  }
}
