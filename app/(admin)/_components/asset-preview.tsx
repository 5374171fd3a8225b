"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { Spinner } from "@/app/_components/ui/empty-state";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { headMedia, mediaFamily } from "@/lib/client/format";
import { keys } from "@/lib/client/queries";
import type { Asset, Workspace } from "@/lib/client/types";
import { useWorkspaceRole } from "@/lib/client/workspace-role";
import { EncodeProgressBar } from "./encode-progress-bar";
import { HlsPlayer, type Playback } from "./hls-player";

const STAGE: Record<string, string> = {
  none: "Waiting for the encode to start",
  queued: "Queued for encoding",
  processing: "Encoding the stream",
};

/**
 * A video without a stream yet: while the encode runs, its progress (rung, percentage, estimate),
 * which moves as the live updates bring the asset again; when an encode failed, Retry queues a
 * new one once.
 */
function VideoProcessing({ slug, asset, workspace }: { slug: string; asset: Asset; workspace: Workspace | undefined }) {
  const qc = useQueryClient();
  // Retrying queues an encode: a write, so viewers see the failure without the button (the server refuses them anyway).
  const canWrite = useWorkspaceRole().can("write");
  const retry = useMutation({
    mutationFn: () => api.assets.retryVideo(slug, asset.token),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.asset(slug, asset.token) }),
  });
  if (workspace && !workspace.streaming_enabled) {
    return <Alert tone="info">Streaming is turned off for this workspace, so this video has no stream.</Alert>;
  }
  if (asset.encode_status === "failed") {
    return (
      <div className="space-y-3">
        <Alert>
          <span data-testid="encode-error">
            The video encode failed: {asset.encode_error?.message ?? "no reason was recorded."}
            {asset.encode_error ? <code className="ml-2 rounded bg-red-100 px-1 text-xs">{asset.encode_error.code}</code> : null}
          </span>
        </Alert>
        {canWrite ? (
          <Button variant="primary" onClick={() => retry.mutate()} disabled={retry.isPending}>
            {retry.isPending ? "Queuing…" : "Retry encode"}
          </Button>
        ) : null}
        {retry.isError ? <Alert>{describeError(retry.error)}</Alert> : null}
      </div>
    );
  }
  return (
    <div aria-live="polite" className="flex flex-col items-center gap-2 rounded-md bg-neutral-900 px-4 py-16 text-neutral-100">
      {asset.encode_progress ? <EncodeProgressBar progress={asset.encode_progress} /> : <Spinner label="Processing" />}
      <p className="text-sm text-neutral-300" data-testid="encode-status">
        {STAGE[asset.encode_status] ?? asset.encode_status}. The player appears when the stream is ready.
      </p>
    </div>
  );
}

/** What the asset is: the image, the video (player or processing state), audio, or a download. */
export function AssetPreview({ slug, asset, workspace, playerToken }: { slug: string; asset: Asset; workspace: Workspace | undefined; playerToken: string | null }) {
  const family = mediaFamily(asset.media_type);
  // Where the viewer was in the last stream shown here, for the player of the next head (hls-player.tsx).
  const lastPlayback = useRef<Playback | null>(null);
  const display = headMedia(asset.display_url, asset.md5);
  const poster = asset.thumbnails.length ? display : undefined;
  if (family === "image") {
    // eslint-disable-next-line @next/next/no-img-element -- a signed media URL of this server
    return <img src={display} alt={asset.title} className="mx-auto max-h-[70vh] w-auto rounded-md bg-neutral-100 object-contain" />;
  }
  if (family === "video") {
    return asset.stream_url ? (
      <HlsPlayer
        src={asset.stream_url}
        token={playerToken}
        poster={poster}
        title={asset.title}
        revision={asset.md5}
        handoff={lastPlayback}
        storyboard={asset.storyboard_url}
      />
    ) : (
      <VideoProcessing slug={slug} asset={asset} workspace={workspace} />
    );
  }
  if (family === "audio") return <audio controls src={display} aria-label={`Audio: ${asset.title}`} className="w-full" />;
  return (
    <div className="rounded-md border border-neutral-200 bg-neutral-50 p-8 text-center">
      <p className="text-sm text-neutral-600">No preview for {asset.media_type}.</p>
      <a href={display} className="mt-2 inline-block text-sm font-medium text-indigo-700 underline" download>
        Download the file
      </a>
    </div>
  );
}
