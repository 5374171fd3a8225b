import { abortError, EaselError } from "../errors";
import { retryDelay, sleep } from "../retry";
import type { PreparedUpload } from "../types";
import { signedConditionHeaders, storageError, storageRequest } from "./storage-request";
import type { TransferContext } from "./transfer";

/** Bytes per PUT to a resumable session: a multiple of 256 KiB, as the protocol asks of every chunk but the last. */
export const GCS_CHUNK_BYTES = 8 * 1024 * 1024;

export type SessionStatus = { state: "partial"; offset: number } | { state: "complete" } | { state: "gone" };

/** `Range: bytes=0-N` of a 308: N + 1 bytes are stored; no Range: none. */
export function committedBytes(range: string | null): number {
  const m = range ? /^bytes=0-(\d+)$/.exec(range.trim()) : null;
  return m ? Number(m[1]) + 1 : 0;
}

/** Opens a resumable session on Kind A's upload URL (201 + Location). */
export async function openSession(ctx: Pick<TransferContext, "client" | "signal" | "mediaType">, prepared: PreparedUpload): Promise<string> {
  const response = await storageRequest(ctx.client, "POST", prepared.upload_url, {
    headers: { "x-goog-resumable": "start", "content-type": ctx.mediaType, ...signedConditionHeaders(prepared.upload_url) },
    signal: ctx.signal,
  });
  const location = response.header("location");
  if (response.status !== 201 && response.status !== 200) throw await storageError("opening the upload session", response);
  if (!location) throw new EaselError(response.status, "storage_error", "storage opened no upload session (no Location)");
  return new URL(location, prepared.upload_url).toString();
}

/** How much of `total` bytes a session holds (an empty PUT with `bytes * /total`). */
export async function querySession(ctx: Pick<TransferContext, "client" | "signal">, session: string, total: number): Promise<SessionStatus> {
  const response = await storageRequest(ctx.client, "PUT", session, { headers: { "content-range": `bytes */${total}` }, signal: ctx.signal });
  if (response.status === 200 || response.status === 201) return { state: "complete" };
  if (response.status === 308) return { state: "partial", offset: committedBytes(response.header("range")) };
  if (response.status === 404 || response.status === 410) return { state: "gone" };
  throw new EaselError(response.status, "storage_error", `asking the upload session how much it holds: HTTP ${response.status}`);
}

/**
 * Kind A: the source in chunks, each PUT with `Content-Range`; a 308 says how much is stored. The
 * source is read once, in order (md5 on the way): bytes before `from` (stored by an earlier run)
 * are read but not sent. After a failed chunk the session is asked where to go on, so a dropped
 * connection costs at most one chunk; the waits back off with jitter like every other retry.
 */
export async function resumableUpload(ctx: TransferContext, session: string, from: number, attempts: number): Promise<void> {
  const total = ctx.size;
  let committed = from;
  ctx.progress(Math.min(committed, total));
  while (ctx.reader.position < total) {
    const chunkStart = ctx.reader.position;
    const chunk = await ctx.reader.read(GCS_CHUNK_BYTES, ctx.signal);
    ctx.md5?.update(chunk);
    const chunkEnd = chunkStart + chunk.byteLength;
    let failures = 0;
    while (committed < chunkEnd) {
      if (committed < chunkStart) throw new EaselError(0, "storage_error", `the upload session went back to byte ${committed}; its earlier bytes were read already`);
      try {
        const response = await storageRequest(ctx.client, "PUT", session, {
          body: chunk.subarray(committed - chunkStart),
          headers: { "content-range": `bytes ${committed}-${chunkEnd - 1}/${total}` },
          signal: ctx.signal,
          retry: false,
        });
        if (response.status === 200 || response.status === 201) {
          committed = total;
          break;
        }
        if (response.status === 308) {
          committed = committedBytes(response.header("range"));
          failures = 0;
          ctx.progress(committed);
          continue;
        }
        if (response.status < 500 && response.status !== 429) throw await storageError(`sending bytes ${committed}-${chunkEnd - 1}`, response);
        throw new EaselError(response.status, "storage_error", `storage answered HTTP ${response.status}`, { retryable: true, retry_after: response.header("retry-after") });
      } catch (err) {
        if (ctx.signal.aborted) throw abortError(ctx.signal);
        const retryable = !(err instanceof EaselError) || err.extensions.retryable === true;
        if (!retryable || ++failures > attempts) throw err;
        const retryAfter = err instanceof EaselError ? (err.extensions.retry_after as string | null) : null;
        await sleep(retryDelay(failures - 1, ctx.client.options.retry, retryAfter), ctx.signal);
        const status = await querySession(ctx, session, total);
        if (status.state === "complete") committed = total;
        else if (status.state === "partial") committed = status.offset;
        else throw new EaselError(404, "storage_error", "the upload session expired in storage");
        ctx.progress(committed);
      }
    }
    ctx.progress(Math.min(committed, total));
  }
  if (committed < total) {
    // The whole source was read but storage holds less: the source was shorter than its declared size.
    throw new EaselError(0, "size_mismatch", `the source ended after ${ctx.reader.position} bytes; ${total} were declared`);
  }
}
