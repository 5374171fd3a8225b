import { abortError, EaselError } from "../errors";
import type { PreparedUpload } from "../types";
import { storedWholeParts } from "./s3-parts-listing";
import { isSuccess, signedConditionHeaders, storageError, storageRequest } from "./storage-request";
import type { TransferContext } from "./transfer";

/** The answer to a resumed upload's parts listing: which parts to skip, or "gone" (prepare anew). */
export async function storedParts(ctx: Pick<TransferContext, "client" | "signal" | "size">, prepared: PreparedUpload): Promise<Set<number> | "gone"> {
  if (!prepared.list_parts_url || !prepared.part_size) return new Set();
  const response = await storageRequest(ctx.client, "GET", prepared.list_parts_url, { signal: ctx.signal });
  if (response.status === 404) return "gone";
  if (!isSuccess(response)) throw await storageError("listing the stored parts", response);
  return storedWholeParts(await response.text(), ctx.size, prepared.part_size);
}

/** Kind B below the multipart threshold: one PUT of the whole file. */
export async function singlePut(ctx: TransferContext, prepared: PreparedUpload): Promise<void> {
  const body = await ctx.reader.read(ctx.size, ctx.signal);
  ctx.md5?.update(body);
  const response = await storageRequest(ctx.client, "PUT", prepared.upload_url, { body, headers: { "content-type": ctx.mediaType, ...signedConditionHeaders(prepared.upload_url) }, signal: ctx.signal });
  // 412: a create-only URL whose object exists, i.e. an earlier attempt stored it (its answer was
  // lost); upload_complete checks the size and md5 of what is there.
  if (!isSuccess(response) && response.status !== 412) throw await storageError("sending the file", response);
  ctx.progress(ctx.size);
}

/**
 * Kind B multipart: parts read in order (md5 on the way), up to `concurrency` PUTs in flight, so
 * at most concurrency + 1 parts are in memory. Parts in `skip` (stored by an earlier run) are read
 * for the md5 but not sent. The first failed part stops the rest.
 */
export async function multipartPut(ctx: TransferContext, prepared: PreparedUpload, skip: Set<number>): Promise<void> {
  const partSize = prepared.part_size;
  const urls = prepared.part_urls;
  if (!partSize || !urls || urls.length !== Math.ceil(ctx.size / partSize)) {
    throw new EaselError(0, "invalid_response", `upload_prepare gave ${urls?.length ?? 0} part URLs of ${partSize ?? 0} bytes for ${ctx.size} bytes`);
  }
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  let stored = 0;
  let failure: unknown = null;
  const inFlight = new Set<Promise<void>>();
  const sendPart = async (n: number, body: Uint8Array) => {
    try {
      const response = await storageRequest(ctx.client, "PUT", urls[n - 1], { body, signal });
      if (!isSuccess(response)) throw await storageError(`sending part ${n} of ${urls.length}`, response);
      stored += body.byteLength;
      ctx.progress(stored);
    } catch (err) {
      failure ??= err;
      stop.abort(err);
    }
  };
  try {
    for (let n = 1; n <= urls.length; n++) {
      while (inFlight.size >= ctx.concurrency && !failure) await Promise.race(inFlight);
      if (failure) break;
      const body = await ctx.reader.read(partSize, signal);
      ctx.md5?.update(body);
      if (skip.has(n)) {
        stored += body.byteLength;
        ctx.progress(stored);
        continue;
      }
      const sending: Promise<void> = sendPart(n, body).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
  } finally {
    // Also when reading failed or was aborted: no PUT outlives the call.
    await Promise.all(inFlight);
  }
  if (ctx.signal.aborted) throw abortError(ctx.signal);
  if (failure) throw failure;
}
