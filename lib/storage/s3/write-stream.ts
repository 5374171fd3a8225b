import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from "@aws-sdk/client-s3";
import { PART_SIZE } from "../limits";

/**
 * Writes a stream of unknown length: S3 needs each request's length up front, so the stream is cut
 * into 8 MiB parts, one held in memory at a time. A stream shorter than one part is a single PUT.
 */
export async function writeStreamInParts(client: S3Client, target: { Bucket: string; Key: string; ContentType: string }, body: ReadableStream<Uint8Array>): Promise<void> {
  const { Bucket, Key, ContentType } = target;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let uploadId: string | null = null;
  const parts: CompletedPart[] = [];

  const takePart = (): Buffer => {
    const all = Buffer.concat(pending, pendingBytes);
    const part = all.subarray(0, Math.min(PART_SIZE, all.length));
    const rest = all.subarray(part.length);
    pending = rest.length ? [rest] : [];
    pendingBytes = rest.length;
    return part;
  };
  const uploadPart = async (part: Buffer) => {
    if (!uploadId) {
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType }));
      uploadId = created.UploadId ?? null;
      if (!uploadId) throw new Error("storage created no multipart upload");
    }
    const PartNumber = parts.length + 1;
    const out = await client.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: part, ContentLength: part.length }));
    parts.push({ PartNumber, ETag: out.ETag });
  };

  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      pendingBytes += chunk.byteLength;
      while (pendingBytes >= PART_SIZE) await uploadPart(takePart());
    }
    if (!uploadId) {
      const whole = takePart();
      await client.send(new PutObjectCommand({ Bucket, Key, Body: whole, ContentType, ContentLength: whole.length }));
      return;
    }
    if (pendingBytes > 0) await uploadPart(takePart());
    await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
  } catch (err) {
    if (uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}
