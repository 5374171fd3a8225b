import fs from "node:fs";
import type { EaselClient } from "../client";
import { EaselError, isAbort } from "../errors";
import { md5Of } from "../md5";
import { uploadFile } from "../upload/upload-file";
import { collectFiles, type LocalFile } from "./collect-files";
import { mediaTypeOf } from "./media-type";
import { formatOutcome, type Outcome } from "./output";
import { createProgress } from "./progress";
import { stateDir, UploadStateFile } from "./state-store";
import type { Connection } from "./usage";

export type UploadCommandOptions = { paths: string[]; board: string | null; recursive: boolean; concurrency: number; json: boolean };

/** Reservations no resume can use again: the upload starts over on the next run. */
const DEAD_RESERVATION = new Set(["checksum_mismatch", "size_mismatch", "invalid_signed_storage_id"]);

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
  const uploadedThisRun = new Map<string, Promise<string | null>>();

  const findExisting = async (md5: string): Promise<string | null> => {
    const page = opts.board
      ? await client.listBoardAssets({ path: { slug: conn.workspace, boardToken: opts.board }, query: { md5, per_page: "1" }, signal })
      : await client.listAssets({ path: { slug: conn.workspace }, query: { md5, per_page: "1" }, signal });
    return page.data[0]?.token ?? null;
  };

  const uploadOne = async (file: LocalFile): Promise<Outcome> => {
    const outcome = (status: Outcome["status"], asset_token: string | null, code: string | null = null, message: string | null = null): Outcome => ({ path: file.display, status, asset_token, code, message });
    const state = new UploadStateFile(dir, { url: conn.url, workspace: conn.workspace, board: opts.board, absolutePath: file.absolutePath, size: file.size, mtimeMs: file.mtimeMs });
    const record = await state.read();
    const blob = await fs.openAsBlob(file.absolutePath);
    const md5 = record.md5 ?? (await md5Of(blob, { signal }));
    if (!record.md5) await state.write({ md5 });

    // One upload per content in a run: a second file with the same bytes waits for the first.
    const earlier = uploadedThisRun.get(md5);
    if (earlier) {
      const token = await earlier;
      if (token) {
        await state.remove();
        return outcome("skipped", token);
      }
    }
    let settle: (token: string | null) => void = () => undefined;
    uploadedThisRun.set(md5, new Promise((resolve) => (settle = resolve)));
    try {
      // An unfinished upload of this file is completed, not skipped: its own asset may not exist yet.
      const existing = record.resume ? null : await findExisting(md5);
      if (existing) {
        settle(existing);
        await state.remove();
        return outcome("skipped", existing);
      }
      const onProgress = progress.start(file.display, file.size);
      try {
        const asset = await uploadFile(client, {
          workspace: conn.workspace,
          file: blob,
          title: file.display.split(/[\\/]/).pop() || file.display,
          mediaType: mediaTypeOf(file.display),
          board: opts.board ?? undefined,
          md5,
          concurrency: opts.concurrency,
          signal,
          onProgress: (sent) => onProgress(sent),
          resume: state.resumeStore(),
        });
        settle(asset.token);
        await state.remove();
        return outcome("uploaded", asset.token);
      } finally {
        progress.finish(file.display);
      }
    } catch (err) {
      settle(null);
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
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, Math.max(1, queue.length)) }, worker));
  } finally {
    progress.stop();
  }
  return failed === 0 ? 0 : 1;
}
