import type { EaselClient } from "../client";
import { abortError, EaselError } from "../errors";
import { createMd5, type Md5 } from "../md5";
import { DEFAULT_RETRY } from "../retry";
import type { Asset, PreparedUpload } from "../types";
import { ByteReader, isRandomAccess, type ByteSource, type RandomAccessSource } from "./byte-reader";
import { openSession, querySession, resumableUpload } from "./gcs-transfer";
import { multipartPut, singlePut, storedParts } from "./s3-transfer";
import type { TransferContext } from "./transfer";

/** What a resumable upload keeps between runs: the reservation, and a gcs upload's session. */
export type ResumeState = { prepared: PreparedUpload; gcsSession: string | null };

/**
 * Where uploadFile keeps its ResumeState (the command: a file under the user's state folder).
 * `load` returns what an earlier run saved for this upload, or null; `save` is called after
 * upload_prepare and after a gcs session opened. The caller removes it once the upload finished.
 */
export type ResumeStore = { load: () => Promise<ResumeState | null> | ResumeState | null; save: (state: ResumeState) => Promise<void> | void };

export type UploadFileOptions = {
  /** The workspace's slug. */
  workspace: string;
  /** The bytes: a Blob or File (`file` and `blob` are the same here; `file` may also be a RandomAccessSource), or a stream with its `size`. */
  file?: Blob | RandomAccessSource;
  blob?: Blob;
  stream?: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  /** Bytes in the stream (required with `stream`; a Blob knows its own). */
  size?: number;
  /** Default: the File's name, else "Untitled". */
  title?: string;
  /** A board token: the asset is placed on that board. */
  board?: string;
  /** Default: the Blob's type, else application/octet-stream (the server sniffs the real one). */
  mediaType?: string;
  /**
   * The md5 of the bytes, when the caller knows it already: sent at upload_prepare, so the server
   * refuses other bytes (422 checksum_mismatch) and nothing is hashed here. A promise of it (an
   * md5 being computed elsewhere, e.g. on a worker thread) is awaited before upload_complete and
   * compared with the asset's. Without it the md5 is computed while the bytes are read and
   * compared with the asset's.
   */
  md5?: string | Promise<string>;
  /** Called as bytes are stored: (bytes stored so far, total). Parts a resumed upload finds stored count as stored. */
  onProgress?: (bytesSent: number, total: number) => void;
  signal?: AbortSignal;
  /** Parallel part uploads of a multipart upload (default 4). */
  concurrency?: number;
  /** Lets a later call continue this upload after a crash (see ResumeStore). */
  resume?: ResumeStore;
  /**
   * Called once every byte is stored, before upload_complete, with the md5 (given, or computed
   * while reading). Throwing stops the upload there: no asset is made, and the reservation
   * expires on its own (the command skips a file whose md5 turned out to be on the server already).
   */
  beforeComplete?: (md5: string) => Promise<void> | void;
};

/** Seconds of a reservation's life a resumed upload wants left; an older one is replaced. */
const MIN_REMAINING_SECONDS = 10 * 60;

function sourceOf(opts: UploadFileOptions): { source: ByteSource; size: number; name: string | null; type: string | null } {
  const blob = opts.file ?? opts.blob;
  const given = [opts.file, opts.blob, opts.stream].filter((x) => x !== undefined).length;
  if (given !== 1) throw new EaselError(0, "invalid_options", "give exactly one of file, blob or stream");
  if (blob && isRandomAccess(blob)) return { source: blob, size: blob.size, name: blob.name ?? null, type: null };
  if (blob) return { source: blob, size: blob.size, name: "name" in blob && typeof blob.name === "string" ? blob.name : null, type: blob.type || null };
  if (opts.size === undefined || !Number.isSafeInteger(opts.size) || opts.size < 0) throw new EaselError(0, "invalid_options", "a stream needs its size in bytes");
  return { source: opts.stream!, size: opts.size, name: null, type: null };
}

const stillValid = (prepared: PreparedUpload, size: number) =>
  Date.parse(prepared.expires_at) - Date.now() > MIN_REMAINING_SECONDS * 1000 && (prepared.part_size === null || Math.ceil(size / prepared.part_size) === prepared.part_urls?.length);

/**
 * Uploads one file as a new asset: upload_prepare, the workspace's storage kind's transfer (a
 * single PUT, a multipart upload with parallel parts, or a resumable session), upload_complete.
 * Every request is retried on 5xx, 429 and network errors. Returns the Asset.
 */
export async function uploadFile(client: EaselClient, opts: UploadFileOptions): Promise<Asset> {
  const { source, size, name, type } = sourceOf(opts);
  const signal = opts.signal ?? new AbortController().signal;
  if (signal.aborted) throw abortError(signal);
  const mediaType = opts.mediaType ?? type ?? "application/octet-stream";
  const title = opts.title ?? name ?? "Untitled";
  const slug = opts.workspace;

  const prepareNew = async (): Promise<ResumeState> => {
    const answer = await client.prepareUpload({
      path: { slug },
      body: { asset: { title, media_type: mediaType, size, ...(opts.board ? { collection_token: opts.board } : {}), ...(typeof opts.md5 === "string" ? { md5: opts.md5 } : {}) } },
      signal,
    });
    const state: ResumeState = { prepared: answer.data, gcsSession: null };
    await opts.resume?.save(state);
    return state;
  };

  const earlier = await opts.resume?.load();
  let state = earlier && stillValid(earlier.prepared, size) ? earlier : await prepareNew();
  const resumed = state === earlier;
  const reader = new ByteReader(source);
  const md5 = opts.md5 ? null : await createMd5();
  const ctx: TransferContext = {
    client,
    reader,
    size,
    mediaType,
    md5,
    signal,
    concurrency: Math.max(1, Math.floor(opts.concurrency ?? 4)),
    progress: (stored) => opts.onProgress?.(Math.min(stored, size), size),
  };
  let local: string | null;
  try {
    const prepared = state.prepared;
    if (prepared.storage_provider === "gcs") {
      let session = resumed ? state.gcsSession : null;
      let from = 0;
      if (session) {
        const status = await querySession(ctx, session, size);
        if (status.state === "gone") session = null;
        else from = status.state === "complete" ? size : status.offset;
      }
      if (!session) {
        session = await openSession(ctx, prepared);
        state = { ...state, gcsSession: session };
        await opts.resume?.save(state);
      }
      await resumableUpload(ctx, session, from, client.options.retry?.retries ?? DEFAULT_RETRY.retries);
    } else if (prepared.multipart_upload_id) {
      let skip = resumed ? await storedParts(ctx, prepared) : new Set<number>();
      if (skip === "gone") {
        // The multipart upload is no longer open (completed by an earlier run, or expired): complete
        // answers for the first case; otherwise a new reservation.
        const finished = await completeOrNull(client, slug, state, opts.board, signal);
        if (finished) return checked(finished, (await digestRest(md5, reader, ctx)) ?? (typeof opts.md5 === "string" ? null : await opts.md5!), ctx);
        state = await prepareNew();
        skip = new Set();
      }
      await multipartPut(ctx, state.prepared, skip);
    } else {
      await singlePut(ctx, prepared);
    }
    // A promised md5 is compared like a computed one; a given string was checked by the server.
    local = (await digestRest(md5, reader, ctx)) ?? (typeof opts.md5 === "string" ? null : await opts.md5!);
  } finally {
    await reader.close();
  }
  await opts.beforeComplete?.(local ?? (opts.md5 as string));
  const answer = await client.completeUpload({
    path: { slug },
    body: { asset: { signed_storage_id: state.prepared.signed_storage_id, ...(state.prepared.multipart_upload_id ? { multipart_upload_id: state.prepared.multipart_upload_id } : {}), ...(opts.board ? { collection_token: opts.board } : {}) } },
    signal,
  });
  return checked(answer.data, local, ctx);
}

async function completeOrNull(client: EaselClient, slug: string, state: ResumeState, board: string | undefined, signal: AbortSignal): Promise<Asset | null> {
  try {
    const answer = await client.completeUpload({
      path: { slug },
      body: { asset: { signed_storage_id: state.prepared.signed_storage_id, multipart_upload_id: state.prepared.multipart_upload_id ?? undefined, ...(board ? { collection_token: board } : {}) } },
      signal,
    });
    return answer.data;
  } catch (err) {
    if (err instanceof EaselError && (err.code === "storage_object_not_found" || err.code === "invalid_signed_storage_id")) return null;
    throw err;
  }
}

/** The md5 of the whole source when it is computed here: a resumed upload that found everything stored read nothing, so the rest is read now. */
async function digestRest(md5: Md5 | null, reader: ByteReader, ctx: TransferContext): Promise<string | null> {
  if (!md5) return null;
  while (reader.position < ctx.size) {
    const chunk = await reader.read(8 * 1024 * 1024, ctx.signal);
    if (chunk.byteLength === 0) break;
    md5.update(chunk);
  }
  return md5.hex();
}

/** With an md5 computed here, the asset's must match it (the server compared a given md5 itself). */
function checked(asset: Asset, local: string | null, ctx: TransferContext): Asset {
  if (local && asset.md5 !== local) {
    throw new EaselError(0, "checksum_mismatch", `the stored bytes have md5 ${asset.md5}, the source's is ${local} (asset ${asset.token})`, { asset_token: asset.token, expected_md5: local, actual_md5: asset.md5 });
  }
  ctx.progress(ctx.size);
  return asset;
}
