"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Dialog } from "@/app/_components/ui/dialog";
import { Spinner } from "@/app/_components/ui/empty-state";
import { LocalTime } from "@/app/_components/ui/local-time";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { formatBytes } from "@/lib/client/format";
import { useLiveConnected } from "@/lib/client/live-updates";
import { assetIsSettling, assetQuery, keys, workspaceQuery } from "@/lib/client/queries";
import { useWorkspaceRole } from "@/lib/client/workspace-role";
import { AssetPreview } from "./asset-preview";
import { EscapeToBoard } from "./keyboard-shortcuts";
import { MetadataForm } from "./metadata-form";
import { NewVersionPanel } from "./new-version-panel";
import { VersionTimeline } from "./version-timeline";

/**
 * While the live stream is down, a settling asset (encode or thumbnails on the way) is re-read
 * this often; while it is up, the stream says when it changed and nothing polls.
 */
const FALLBACK_POLL_MS = 15_000;

/** The asset page: preview or player, details, new versions, and the version timeline. */
/** `tokenNames`: the workspace's API token names by prefix, so the timeline names who wrote each version. */
export function AssetView({ slug, token, playerToken, tokenNames = {} }: { slug: string; token: string; playerToken: string | null; tokenNames?: Record<string, string> }) {
  const qc = useQueryClient();
  const router = useRouter();
  const { data: ws } = useQuery(workspaceQuery(slug));
  const workspace = ws?.data;
  const live = useLiveConnected();
  const query = useQuery({
    ...assetQuery(slug, token, { poll: false }),
    refetchInterval: (q) => (!live && workspace?.streaming_enabled !== false && assetIsSettling(q.state.data?.data) ? FALLBACK_POLL_MS : false),
  });
  const canWrite = useWorkspaceRole().can("write");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: () => api.assets.remove(slug, token),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.assetLists(slug) });
      router.push(`/w/${slug}/boards`);
    },
  });
  if (query.isPending) return <Spinner label="Loading the asset" />;
  if (query.isError) return <Alert>{describeError(query.error)}</Alert>;
  const asset = query.data.data;
  return (
    <div className="space-y-8">
      <EscapeToBoard href={asset.boards[0] ? `/w/${slug}/boards/${asset.boards[0]}` : `/w/${slug}/boards`} />
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="min-w-0 truncate text-2xl font-semibold">{asset.title}</h1>
        <Badge>{asset.media_type}</Badge>
        <Badge tone="green">head v{asset.head_version_number}</Badge>
        {asset.encode_status === "failed" ? (
          <Badge tone="red" title={asset.encode_error?.message}>
            encode failed
          </Badge>
        ) : null}
        {asset.processing_error ? (
          <Badge tone="red" title={asset.processing_error.message}>
            processing stopped
          </Badge>
        ) : null}
        <div className="ml-auto flex items-center gap-3 text-sm">
          {asset.boards.map((b) => (
            <Link key={b} href={`/w/${slug}/boards/${b}`} className="text-indigo-700 hover:underline">
              Open board
            </Link>
          ))}
          {canWrite ? (
            <Button size="sm" variant="danger" onClick={() => setConfirmDelete(true)}>
              Delete…
            </Button>
          ) : null}
        </div>
      </div>
      {asset.processing_error ? (
        <Alert>
          <span data-testid="processing-error">
            Processing of this file was stopped at a limit: {asset.processing_error.message}. What was made before it is kept.
            <code className="ml-2 rounded bg-red-100 px-1 text-xs">{asset.processing_error.code}</code>
          </span>
        </Alert>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="space-y-6">
          <AssetPreview slug={slug} asset={asset} workspace={workspace} playerToken={playerToken} />
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-neutral-500">Size</dt>
            <dd>{formatBytes(asset.size)}</dd>
            <dt className="text-neutral-500">MD5</dt>
            <dd className="break-all font-mono text-xs">{asset.md5}</dd>
            <dt className="text-neutral-500">Created</dt>
            <dd>
              <LocalTime iso={asset.created_at} />
            </dd>
            <dt className="text-neutral-500">Updated</dt>
            <dd>
              <LocalTime iso={asset.updated_at} />
            </dd>
          </dl>
          {workspace?.versioning !== false && workspace && canWrite ? (
            <details className="rounded-lg border border-neutral-200 bg-white p-4">
              <summary className="cursor-pointer font-medium">Upload new version</summary>
              <div className="mt-3">
                <NewVersionPanel slug={slug} asset={asset} storageKind={workspace.storage_kind} />
              </div>
            </details>
          ) : null}
        </div>
        <section aria-labelledby="details-heading" className="space-y-3">
          <h2 id="details-heading" className="text-lg font-semibold">
            Details
          </h2>
          {saved ? <Alert tone="success">{saved}</Alert> : null}
          {/* Remounted when the head moves (revert, new version), so the fields show the new head. */}
          <MetadataForm key={asset.head_version_number} slug={slug} asset={asset} versioning={workspace?.versioning ?? false} onSaved={setSaved} />
        </section>
      </div>
      <VersionTimeline slug={slug} asset={asset} workspace={workspace} tokenNames={tokenNames} />
      <Dialog open={confirmDelete} onClose={() => setConfirmDelete(false)} title="Delete this asset?">
        <p className="text-sm text-neutral-700">The asset and its whole version history are deleted. Links to it stop working.</p>
        {remove.isError ? <Alert>{describeError(remove.error)}</Alert> : null}
        <div className="flex justify-end gap-2">
          <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
          <Button variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Delete
          </Button>
        </div>
      </Dialog>
    </div>
  );
}
