import { HydrationBoundary } from "@tanstack/react-query";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AssetGrid, NoAssets } from "../../../_components/asset-grid";
import { BoardTree } from "../../../_components/board-tree";
import { BrowserShell } from "../../../_components/browser-shell";
import { dehydrated, prefetchAssetGrid, prefetchTree, workspaceContext } from "../../../_lib/prefetch";
import { requireSession } from "../../../_lib/session";

export const metadata = { title: "Boards" };

export default async function WorkspaceBoardsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const ctx = await workspaceContext(slug, await requireSession());
  if (!ctx) notFound();
  await Promise.all([prefetchTree(ctx), prefetchAssetGrid(ctx, { kind: "all" })]);
  return (
    <HydrationBoundary state={dehydrated(ctx.qc)}>
      <BrowserShell tree={<BoardTree slug={slug} openPath={[]} />}>
        <div className="space-y-4">
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-semibold">All assets</h1>
            <Link href={`/w/${slug}/search`} className="ml-auto text-sm text-indigo-700 hover:underline">
              Search assets →
            </Link>
          </div>
          <AssetGrid
            slug={slug}
            scope={{ kind: "all" }}
            empty={
              <NoAssets title="No assets in this workspace yet">
                Create a board in the sidebar, open it, and drop files into its upload area.
              </NoAssets>
            }
          />
        </div>
      </BrowserShell>
    </HydrationBoundary>
  );
}
