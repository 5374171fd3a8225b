import { HydrationBoundary } from "@tanstack/react-query";
import { notFound } from "next/navigation";
import { createBoardToken } from "@/lib/access-tokens/create-board-token";
import { AssetView } from "../../../../_components/asset-view";
import { dehydrated, prefetchAsset, workspaceContext } from "../../../../_lib/prefetch";
import { requireSession } from "../../../../_lib/session";
import { tokenNamesByPrefix } from "../../../../_lib/token-names";

export const metadata = { title: "Asset" };

/** Player tokens last the longest a board access token may (contract §5); the page is reloaded well within that. */
const PLAYER_TOKEN_SECONDS = 3600;

export default async function AssetPage({ params }: { params: Promise<{ slug: string; token: string }> }) {
  const { slug, token } = await params;
  const ctx = await workspaceContext(slug, await requireSession());
  if (!ctx) notFound();
  const asset = await prefetchAsset(ctx, token);
  if (!asset) notFound();
  // The player reads the stream with a board access token minted here, for a board holding the
  // asset; without a board it falls back to the stream's own signed link.
  const board = asset.media_type.startsWith("video/") ? asset.boards[0] : undefined;
  const player = board ? await createBoardToken(ctx.deps, { workspace: ctx.workspace, boardToken: board, expiresIn: PLAYER_TOKEN_SECONDS, forUser: ctx.principal.userId }) : null;
  const tokenNames = await tokenNamesByPrefix(ctx.deps.db, ctx.workspace);
  return (
    <HydrationBoundary state={dehydrated(ctx.qc)}>
      <AssetView slug={slug} token={token} playerToken={player?.access_token ?? null} tokenNames={tokenNames} />
    </HydrationBoundary>
  );
}
