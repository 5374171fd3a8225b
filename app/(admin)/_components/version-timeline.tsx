"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type KeyboardEvent } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Dialog } from "@/app/_components/ui/dialog";
import { Spinner } from "@/app/_components/ui/empty-state";
import { TextArea } from "@/app/_components/ui/field";
import { LocalTime } from "@/app/_components/ui/local-time";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { formatBytes, revertWindowLabel } from "@/lib/client/format";
import { keys, versionsQuery } from "@/lib/client/queries";
import type { Asset, Workspace } from "@/lib/client/types";
import { useWorkspaceRole } from "@/lib/client/workspace-role";
import { CommentEditor } from "./comment-editor";
import { ComparePanel } from "./compare-panel";
import { headEntry, versionEntry, type Entry } from "./version-entry";

const SOURCE_TONE = { UPLOAD: "blue", REVERT: "violet", EDIT: "neutral" } as const;

function Row({ entry, slug, asset, workspace, selected, onSelect, onRevert }: {
  entry: Entry; slug: string; asset: Asset; workspace: Workspace | undefined; selected: boolean; onSelect: (on: boolean) => void; onRevert: () => void;
}) {
  const thumb = [...entry.thumbnails].sort((a, b) => a.width - b.width)[0];
  const windowDays = workspace?.revert_window_days ?? null;
  const canWrite = useWorkspaceRole().can("write");
  // Reverts and comment edits are writes: a viewer sees the history without them.
  const versioning = (workspace?.versioning ?? true) && canWrite;
  const canRevert = !entry.isHead && entry.revertable && versioning;
  // Keyboard: the row itself is focusable; Enter reverts (when it can), Space ticks it for compare.
  const onKeyDown = (e: KeyboardEvent<HTMLLIElement>) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === "Enter" && canRevert) {
      e.preventDefault();
      onRevert();
    } else if (e.key === " ") {
      e.preventDefault();
      onSelect(!selected);
    }
  };
  return (
    <li
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-label={`Version ${entry.number}${entry.isHead ? ", the current head" : ""}${canRevert ? ", revertable: Enter to revert" : ""}; Space to compare`}
      data-version-item
      className={`flex gap-3 rounded-lg border p-3 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${entry.isHead ? "border-indigo-300 bg-indigo-50/50" : "border-neutral-200 bg-white"}`}
      data-testid={`version-${entry.number}`}
    >
      <div className="h-16 w-16 shrink-0 overflow-hidden rounded bg-neutral-100">
        {thumb ? (
          // eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server
          <img src={thumb.url} alt="" loading="lazy" className="h-full w-full object-cover" />
        ) : null}
      </div>
      <div className="min-w-0 flex-1 space-y-1">
        <div className="flex flex-wrap items-center gap-1.5">
          <span className="font-semibold">v{entry.number}</span>
          {entry.isHead ? <Badge tone="green">head · current</Badge> : null}
          {entry.source ? <Badge tone={SOURCE_TONE[entry.source as keyof typeof SOURCE_TONE] ?? "neutral"}>{entry.source}</Badge> : null}
          {!entry.isHead ? (
            entry.revertable ? (
              <Badge tone="green">revertable</Badge>
            ) : (
              <Badge tone="amber" title="Older than the plan's revert window: only a preview is kept">
                {versioning && windowDays !== null ? `past the ${windowDays}-day window` : "not revertable"}
              </Badge>
            )
          ) : null}
        </div>
        {entry.isHead ? (
          <p className="text-sm text-neutral-600">The live asset. Stored versions below are snapshots of earlier states.</p>
        ) : (
          <CommentEditor slug={slug} token={asset.token} version={entry.number} comment={entry.comment} canEdit={versioning} />
        )}
        <p className="text-xs text-neutral-600">
          {entry.title ? <span>{entry.title} · </span> : null}
          {formatBytes(entry.size)} · <LocalTime iso={entry.at} relative />
          {entry.author ? <span data-testid="version-author"> · by {entry.author}</span> : null}
        </p>
      </div>
      <div className="flex shrink-0 flex-col items-end gap-2">
        {canRevert ? (
          <Button size="sm" onClick={onRevert} aria-label={`Revert to version ${entry.number}`}>
            Revert…
          </Button>
        ) : null}
        <label className="flex items-center gap-1.5 text-xs text-neutral-700">
          <input type="checkbox" checked={selected} onChange={(e) => onSelect(e.target.checked)} className="h-4 w-4" />
          Compare
        </label>
      </div>
    </li>
  );
}

/** Up/Down (and Home/End) move focus from version to version. */
function moveBetweenVersions(e: KeyboardEvent<HTMLOListElement>) {
  const rows = Array.from(e.currentTarget.querySelectorAll<HTMLElement>("[data-version-item]"));
  const at = rows.indexOf(e.target as HTMLElement);
  if (at < 0) return;
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[e.key];
  if (to === undefined || !rows[to]) return;
  e.preventDefault();
  rows[to].focus();
}

/**
 * Version history, newest first, with the live head on top. Revert (with an optional comment,
 * after a confirmation), inline comment edits, and a side-by-side compare of any two states.
 */
export function VersionTimeline({ slug, asset, workspace, tokenNames = {} }: { slug: string; asset: Asset; workspace: Workspace | undefined; tokenNames?: Record<string, string> }) {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const versions = useQuery(versionsQuery(slug, asset.token, page));
  const [selected, setSelected] = useState<number[]>([]);
  const [target, setTarget] = useState<Entry | null>(null);
  const [comment, setComment] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const revert = useMutation({
    mutationFn: (e: Entry) => api.assets.revert(slug, asset.token, { version_number: e.number, ...(comment.trim() ? { comment: comment.trim() } : {}) }),
    onSuccess: async (res, e) => {
      setTarget(null);
      setComment("");
      setNotice(`Reverted to version ${e.number}. The head is now v${res.head_version_number}; the state it replaced is kept as v${res.head_version_number - 1}.`);
      await qc.invalidateQueries({ queryKey: keys.asset(slug, asset.token) });
      await qc.invalidateQueries({ queryKey: keys.assetLists(slug) });
    },
  });

  const head = headEntry(asset);
  const stored = versions.data?.data.map((v) => versionEntry(v, tokenNames)) ?? [];
  const entries = page === 1 ? [head, ...stored] : stored;
  const byNumber = new Map([head, ...stored].map((e) => [e.number, e]));
  const compared = selected.map((n) => byNumber.get(n)).filter((e): e is Entry => !!e).sort((a, b) => a.number - b.number);
  const totalPages = versions.data?.pagy.total_pages ?? 1;

  return (
    <section aria-labelledby="versions-heading" className="space-y-3">
      <div className="flex flex-wrap items-baseline gap-3">
        <h2 id="versions-heading" className="text-lg font-semibold">
          Version history
        </h2>
        {workspace ? (
          <p className="text-sm text-neutral-600">
            {workspace.versioning ? `Revert window: ${revertWindowLabel(workspace.revert_window_days)}.` : "This plan keeps history but does not allow reverts or new versions."}
          </p>
        ) : null}
      </div>
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {compared.length === 2 ? <ComparePanel left={compared[0]} right={compared[1]} onClose={() => setSelected([])} /> : null}
      {selected.length === 1 ? <p className="text-sm text-neutral-600">Pick one more version to compare.</p> : null}
      {versions.isPending ? (
        <Spinner label="Loading versions" />
      ) : versions.isError ? (
        <Alert>{describeError(versions.error)}</Alert>
      ) : (
        <ol className="space-y-2" aria-label="Versions, newest first" onKeyDown={moveBetweenVersions}>
          {entries.map((e) => (
            <Row
              key={e.isHead ? "head" : e.number}
              entry={e}
              slug={slug}
              asset={asset}
              workspace={workspace}
              selected={selected.includes(e.number)}
              onSelect={(on) => setSelected((s) => (on ? [...s.filter((n) => n !== e.number), e.number].slice(-2) : s.filter((n) => n !== e.number)))}
              onRevert={() => {
                revert.reset();
                setTarget(e);
              }}
            />
          ))}
          {stored.length === 0 && page === 1 ? <li className="px-1 text-sm text-neutral-500">No earlier versions yet: uploading a new version or reverting keeps the current state here.</li> : null}
        </ol>
      )}
      {totalPages > 1 ? (
        <nav aria-label="Version pages" className="flex items-center gap-2 text-sm">
          <Button size="sm" onClick={() => setPage((p) => p - 1)} disabled={page <= 1}>
            Newer
          </Button>
          <span>
            Page {page} of {totalPages}
          </span>
          <Button size="sm" onClick={() => setPage((p) => p + 1)} disabled={page >= totalPages}>
            Older
          </Button>
        </nav>
      ) : null}
      <Dialog open={target !== null} onClose={() => setTarget(null)} title={`Revert to version ${target?.number ?? ""}?`}>
        {target ? (
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              revert.mutate(target);
            }}
          >
            <p className="text-sm text-neutral-700">
              Version {target.number}&rsquo;s content becomes the live asset (as v{asset.head_version_number + 1}). The current state is not lost: it is kept in the history as v{asset.head_version_number}, with the comment below.
            </p>
            <TextArea label="Comment (optional)" rows={2} value={comment} onChange={(e) => setComment(e.target.value)} placeholder="Why are you reverting?" maxLength={2000} />
            {revert.isError ? <Alert>{describeError(revert.error)}</Alert> : null}
            <div className="flex justify-end gap-2">
              <Button onClick={() => setTarget(null)}>Cancel</Button>
              <Button type="submit" variant="primary" disabled={revert.isPending}>
                {revert.isPending ? "Reverting…" : `Revert to v${target.number}`}
              </Button>
            </div>
          </form>
        ) : null}
      </Dialog>
    </section>
  );
}
