import { HydrationBoundary } from "@tanstack/react-query";
import { notFound } from "next/navigation";
import { createBoardToken } from "@/lib/access-tokens/create-board-token";
import { DomainError } from "@/lib/errors";
import { BoardTree } from "../../../../_components/board-tree";
import { BoardView } from "../../../../_components/board-view";
import { BrowserShell } from "../../../../_components/browser-shell";
import { dehydrated, prefetchAssetGrid, prefetchTree, workspaceContext } from "../../../../_lib/prefetch";
import { requireSession } from "../../../../_lib/session";

export const metadata = { title: "Board" };

/** The bulk "download originals" and the lightbox's video player read media with a board access token minted here (the longest one may live, contract §5). */
const DOWNLOAD_TOKEN_SECONDS = 3600;

export default async function BoardPage({ params }: { params: Promise<{ slug: string; boardToken: string }> }) {
  const { slug, boardToken } = await params;
  const ctx = await workspaceContext(slug, await requireSession());
  if (!ctx) notFound();
  let openPath: string[];
  let download: Awaited<ReturnType<typeof createBoardToken>>;
  try {
    [openPath, , download] = await Promise.all([
      prefetchTree(ctx, boardToken),
      prefetchAssetGrid(ctx, { kind: "board", token: boardToken, nested: false }),
      createBoardToken(ctx.deps, { workspace: ctx.workspace, boardToken, expiresIn: DOWNLOAD_TOKEN_SECONDS, forUser: ctx.principal.userId }),
    ]);
  } catch (err) {
    if (err instanceof DomainError && err.code === "board_not_found") notFound();
    throw err;
  }
  return (
    <HydrationBoundary state={dehydrated(ctx.qc)}>
      <BrowserShell tree={<BoardTree slug={slug} activeToken={boardToken} openPath={openPath} />}>
        <BoardView slug={slug} token={boardToken} downloadToken={download.access_token} />
      </BrowserShell>
    </HydrationBoundary>
  );
}
