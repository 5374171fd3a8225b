import type { EaselClient } from "../client";
import { EaselError, isAbort } from "../errors";
import { md5Of } from "../md5";
import { openFileSource } from "../node/file-source";
import { md5InWorker } from "../node/md5-in-worker";
import { uploadFile } from "../upload/upload-file";
import { collectFiles, type LocalFile } from "./collect-files";
import { KnownContent } from "./known-content";
import { mediaTypeOf } from "./media-type";
import { formatOutcome, type Outcome } from "./output";
import { createProgress } from "./progress";
import { stateDir, UploadStateFile } from "./state-store";
import type { Connection } from "./usage";

export type UploadCommandOptions = { paths: string[]; board: string | null; recursive: boolean; concurrency: number; json: boolean };

/**
 * Files at least this large are hashed while they upload (one read of the file, no pass before
 * it) and the duplicate check runs just before upload_complete; their md5 is remembered in the
 * state folder, so the next run checks them before sending anything. Smaller files are hashed
 * first: reading them twice costs less than the lookup.
 */
export const HASH_WHILE_UPLOADING_BYTES = 64 * 1024 * 1024;

/** Reservations no resume can use again: the upload starts over on the next run. */
const DEAD_RESERVATION = new Set(["checksum_mismatch", "size_mismatch", "invalid_signed_storage_id"]);

/** Thrown from beforeComplete when the content turned out to be on the server already. */
class AlreadyThere extends Error {
  constructor(readonly token: string) {
    super("already uploaded");
  }
}

/**
 * `easel-client upload`: every file named (folders with --recursive), up to `concurrency` files
 * at a time and `concurrency` parts of each. A file whose md5 is already on the board (or in the
 * workspace without --board) is skipped, as is a second file of the same content in one run.
 * Returns the exit code: 0 when nothing failed, 1 otherwise.
 */
export async function uploadCommand(client: EaselClient, conn: Connection, opts: UploadCommandOptions, signal: AbortSignal): Promise<number> {
  const progress = createProgress(process.stderr, process.stdout);
  let failed = 0;
  const report = (outcome: Outcome) => {
    if (outcome.status === "failed") failed++;
    progress.log(formatOutcome(outcome, opts.json), true);
  };
  const { files, problems } = await collectFiles(opts.paths, opts.recursive);
  for (const p of problems) report({ path: p.display, status: "failed", asset_token: null, code: p.code, message: p.message });

  const dir = stateDir(process.env);
  const known = new KnownContent(client, conn.workspace, opts.board, signal);

  const uploadOne = async (file: LocalFile): Promise<Outcome> => {
    const outcome = (status: Outcome["status"], asset_token: string | null, code: string | null = null, message: string | null = null): Outcome => ({ path: file.display, status, asset_token, code, message });
    const state = new UploadStateFile(dir, { url: conn.url, workspace: conn.workspace, board: opts.board, absolutePath: file.absolutePath, size: file.size, mtimeMs: file.mtimeMs });
    const large = file.size >= HASH_WHILE_UPLOADING_BYTES;
    // A large file's record stays once it is done (its md5, for the next run's check); a small one's goes.
    const finish = async (md5: string) => (large ? state.write({ md5, resume: null }) : state.remove());
    let settle: ((token: string | null) => void) | null = null;
    try {
      const record = await state.read();
      const blob = await openFileSource(file.absolutePath);
      const md5 = record.md5 ?? (large ? null : await md5Of(blob, { signal }));
      if (md5) {
        const claim = await known.claim(md5);
        if ("earlier" in claim) {
          await finish(md5);
          return outcome("skipped", claim.earlier);
        }
        settle = claim.settle;
        // An unfinished upload of this file is completed, not skipped: its own asset may not exist yet.
        const existing = record.resume ? null : await known.onServer(md5);
        if (existing) {
          settle(existing);
          await finish(md5);
          return outcome("skipped", existing);
        }
      }
      const onProgress = progress.start(file.display, file.size);
      // Stops the md5 worker when the upload ends first (a failure): its answer is then not needed.
      const hashDone = new AbortController();
      const hashing = md5 ? null : md5InWorker(file.absolutePath, AbortSignal.any([signal, hashDone.signal]));
      hashing?.catch(() => undefined);
      try {
        const asset = await uploadFile(client, {
          workspace: conn.workspace,
          file: blob,
          title: file.display.split(/[\\/]/).pop() || file.display,
          mediaType: mediaTypeOf(file.display),
          board: opts.board ?? undefined,
          // A large file's md5 is computed beside the transfer, on a worker thread, and checked before completion.
          md5: md5 ?? hashing!,
          concurrency: opts.concurrency,
          signal,
          onProgress: (sent) => onProgress(sent),
          resume: state.resumeStore(),
          beforeComplete: md5
            ? undefined
            : async (computed) => {
                await state.write({ md5: computed });
                const claim = await known.claim(computed);
                if ("earlier" in claim) throw new AlreadyThere(claim.earlier);
                settle = claim.settle;
                const existing = await known.onServer(computed);
                if (existing) {
                  claim.settle(existing);
                  throw new AlreadyThere(existing);
                }
              },
        });
        settle?.(asset.token);
        await finish(asset.md5);
        return outcome("uploaded", asset.token);
      } finally {
        hashDone.abort();
        progress.finish(file.display);
      }
    } catch (err) {
      settle?.(null);
      if (err instanceof AlreadyThere) {
        // The bytes went to a reservation that is never completed: storage drops it after 24 h.
        const { md5 } = await state.read();
        if (md5) await finish(md5);
        return outcome("skipped", err.token);
      }
      if (err instanceof EaselError && DEAD_RESERVATION.has(err.code)) await state.write({ resume: null });
      if (isAbort(err) || signal.aborted) return outcome("failed", null, "aborted", "interrupted; run the same command again to continue");
      if (err instanceof EaselError) return outcome("failed", null, err.code, err.message);
      return outcome("failed", null, "error", (err as Error).message);
    }
  };

  const queue = [...files];
  const worker = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      if (signal.aborted) {
        report({ path: file.display, status: "failed", asset_token: null, code: "aborted", message: "not started: interrupted" });
        continue;
      }
      report(await uploadOne(file));
    }
  };
  try {
    if (files.length > 0) await known.prefetch(files.length);
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, Math.max(1, queue.length)) }, worker));
  } finally {
    progress.stop();
  }
  return failed === 0 ? 0 : 1;
}
