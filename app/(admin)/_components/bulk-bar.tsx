"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { Dialog } from "@/app/_components/ui/dialog";
import { inputClass } from "@/app/_components/ui/field";
import { describeError } from "@/lib/client/errors";
import { addTag, deleteAsset, downloadOriginal, type BulkAction } from "@/lib/client/grid/bulk-actions";
import { runBulk, type BulkFailure, type BulkProgress } from "@/lib/client/grid/bulk-runner";
import { emptySelection, onlyThese, resolveSelection, selectAll, selectedCount, type Selection } from "@/lib/client/grid/selection";
import { keys, listEveryAsset, type AssetListScope } from "@/lib/client/queries";
import type { Asset } from "@/lib/client/types";

/** Requests in flight at once for delete and tag; downloads go one after another. */
const CONCURRENCY = 4;

const VERB: Record<BulkAction, [string, string]> = { delete: ["Deleting", "Deleted"], tag: ["Tagging", "Tagged"], download: ["Downloading", "Downloaded"] };

/** A failed item: the asset, or only its token when it was no longer listed. */
type Failed = BulkFailure<Pick<Asset, "token" | "title">>;
/** `unlisted`: picked assets a refresh of the list has dropped (deleted elsewhere), counted in the run's total and failures. */
type Run = { action: BulkAction; progress: BulkProgress; unlisted: number; phase: "listing" | "running" | "done"; failed: Failed[]; aborted: boolean; error: string | null };

/**
 * Bulk actions on the grid's selection: delete, add a tag, download originals. "Select all"
 * selects the whole board, loaded or not: when an action starts, the board is listed page by
 * page (the /v1 list route) and the action runs on every asset listed minus the ones unticked.
 * Progress reads "n of N"; every failure is listed with the asset and the API's code and message,
 * and the failed assets stay selected so the action can be tried again. Delete and tag are shown
 * only with `canWrite`.
 */
export function BulkBar({ slug, scope, selection, onSelectionChange, loaded, total, canWrite, downloadToken }: {
  slug: string; scope: AssetListScope; selection: Selection; onSelectionChange: (s: Selection) => void; loaded: Asset[]; total: number; canWrite: boolean; downloadToken: string | null;
}) {
  const qc = useQueryClient();
  const [confirm, setConfirm] = useState<null | "delete" | "tag">(null);
  const [tag, setTag] = useState("");
  const [run, setRun] = useState<Run | null>(null);
  const abort = useRef<AbortController | null>(null);
  const count = selectedCount(selection, total);
  const busy = run !== null && run.phase !== "done";

  async function start(action: BulkAction, tagName?: string) {
    setConfirm(null);
    const controller = new AbortController();
    abort.current = controller;
    setRun({ action, progress: { done: 0, total: count, failed: 0 }, unlisted: 0, phase: "listing", failed: [], aborted: false, error: null });
    try {
      const everything = selection.mode === "all" ? await listEveryAsset(slug, scope, controller.signal) : loaded;
      const byToken = new Map(everything.map((a) => [a.token, a]));
      const tokens = resolveSelection(selection, everything.map((a) => a.token));
      const targets = tokens.flatMap((t) => byToken.get(t) ?? []);
      // Picked cards that a refresh of the list has since dropped (deleted elsewhere): reported, not skipped silently.
      const unlisted: Failed[] = tokens.filter((t) => !byToken.has(t)).map((t) => ({ item: { token: t, title: t }, code: "asset_not_listed", message: "It is no longer on this board." }));
      setRun((r) => r && { ...r, phase: "running", unlisted: unlisted.length, progress: { done: 0, total: targets.length, failed: 0 } });
      const perform = (a: Asset, signal?: AbortSignal) =>
        action === "delete" ? deleteAsset(slug, a) : action === "tag" ? addTag(slug, a, tagName ?? "") : downloadOriginal(a, downloadToken ?? "", signal);
      const result = await runBulk(targets, perform, {
        concurrency: action === "download" ? 1 : CONCURRENCY,
        signal: controller.signal,
        onProgress: (progress) => setRun((r) => r && { ...r, progress }),
      });
      const failed: Failed[] = [...unlisted, ...result.failed];
      setRun((r) => r && { ...r, phase: "done", failed, aborted: result.aborted });
      onSelectionChange(result.failed.length ? onlyThese(result.failed.map((f) => f.item.token)) : emptySelection());
    } catch (err) {
      // Listing the board failed (or was stopped): nothing was acted on.
      setRun((r) => r && { ...r, phase: "done", aborted: true, error: `The board could not be listed, so nothing was changed: ${describeError(err)}` });
    } finally {
      abort.current = null;
      if (action !== "download") await qc.invalidateQueries({ queryKey: keys.assetLists(slug) });
    }
  }

  if (count === 0 && !run) {
    return (
      <div className="flex items-center gap-2 text-sm text-neutral-600">
        <Button size="sm" onClick={() => onSelectionChange(selectAll())} disabled={total === 0}>
          Select all on the board ({total})
        </Button>
        <span className="text-xs text-neutral-500">Tick cards to act on several; shift-click selects a range.</span>
      </div>
    );
  }

  return (
    <div className="space-y-2" data-testid="bulk-bar">
      <div role="toolbar" aria-label="Bulk actions" className="flex flex-wrap items-center gap-2 rounded-lg border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm">
        <span className="font-medium" data-testid="selected-count">
          {count} selected{selection.mode === "all" ? " (the whole board)" : ""}
        </span>
        <Button size="sm" onClick={() => onSelectionChange(selectAll())} disabled={busy || selection.mode === "all"}>
          Select all on the board ({total})
        </Button>
        <Button size="sm" variant="ghost" onClick={() => onSelectionChange(emptySelection())} disabled={busy}>
          Clear selection
        </Button>
        <span className="mx-1 h-5 w-px bg-indigo-200" aria-hidden />
        {canWrite ? (
          <>
            <Button size="sm" onClick={() => setConfirm("tag")} disabled={busy || count === 0}>
              Add tag…
            </Button>
            <Button size="sm" variant="danger" onClick={() => setConfirm("delete")} disabled={busy || count === 0}>
              Delete…
            </Button>
          </>
        ) : null}
        <Button size="sm" onClick={() => void start("download")} disabled={busy || count === 0 || !downloadToken} title={downloadToken ? undefined : "Originals can be downloaded from a board page"}>
          Download originals
        </Button>
        {busy ? (
          <Button size="sm" variant="ghost" onClick={() => abort.current?.abort()}>
            Stop
          </Button>
        ) : null}
      </div>
      {run ? <RunReport run={run} onDismiss={() => setRun(null)} /> : null}
      <Dialog open={confirm === "delete"} onClose={() => setConfirm(null)} title={`Delete ${count} ${count === 1 ? "asset" : "assets"}?`}>
        <p className="text-sm text-neutral-700">Each asset and its whole version history are deleted. Links to them stop working.</p>
        <div className="flex justify-end gap-2">
          <Button onClick={() => setConfirm(null)}>Cancel</Button>
          <Button variant="danger" onClick={() => void start("delete")}>
            Delete {count}
          </Button>
        </div>
      </Dialog>
      <Dialog open={confirm === "tag"} onClose={() => setConfirm(null)} title={`Add a tag to ${count} ${count === 1 ? "asset" : "assets"}`}>
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (tag.trim()) void start("tag", tag.trim());
          }}
        >
          <label className="block space-y-1 text-sm">
            <span className="font-medium">Tag</span>
            <input value={tag} onChange={(e) => setTag(e.target.value)} maxLength={100} required className={inputClass} autoFocus />
          </label>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setConfirm(null)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={!tag.trim()}>
              Add tag
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}

function RunReport({ run, onDismiss }: { run: Run; onDismiss: () => void }) {
  const [doing, did] = VERB[run.action];
  const { done, failed } = run.progress;
  const total = run.progress.total + run.unlisted;
  const ok = done - failed;
  return (
    <div className="space-y-2" data-testid="bulk-report">
      <p role="status" aria-live="polite" className="text-sm text-neutral-700" data-testid="bulk-progress">
        {run.phase === "listing"
          ? "Listing the board…"
          : run.phase === "running"
            ? `${doing} ${done} of ${total}…`
            : `${did} ${ok} of ${total}${run.failed.length ? `; ${run.failed.length} failed` : ""}${run.aborted ? " (stopped)" : ""}.`}
      </p>
      {run.error ? <Alert>{run.error}</Alert> : null}
      {run.phase === "running" ? <progress max={total} value={done} className="h-1.5 w-full" aria-label={`${doing} progress`} /> : null}
      {run.phase === "done" && run.failed.length ? (
        <Alert>
          <p className="font-medium">These were not {did.toLowerCase()}:</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="bulk-failures">
            {run.failed.map((f) => (
              <li key={f.item.token}>
                <span className="font-medium">{f.item.title}</span> <span className="font-mono text-xs">({f.item.token})</span>: <code className="rounded bg-red-100 px-1 text-xs" title="The API's error code" data-testid="bulk-failure-code">{f.code}</code> {f.message}
              </li>
            ))}
          </ul>
        </Alert>
      ) : null}
      {run.phase === "done" ? (
        <Button size="sm" variant="ghost" onClick={onDismiss}>
          Dismiss
        </Button>
      ) : null}
    </div>
  );
}
