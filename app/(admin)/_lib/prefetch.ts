import { dehydrate, type QueryClient } from "@tanstack/react-query";
import { getAssetOrThrow, presentAsset } from "@/lib/assets/get-asset";
import { listBoardAssets, listWorkspaceAssets } from "@/lib/assets/list-board-assets";
import type { SessionPrincipal } from "@/lib/auth/principal";
import { sessionRole } from "@/lib/auth/roles";
import { getBoardOrThrow, listBoards, listChildren, toBoardJson } from "@/lib/boards";
import { ASSET_PAGE_SIZE, TREE_PAGE_SIZE, VERSIONS_PAGE_SIZE, assetListQuery, assetQuery, boardQuery, childBoardPagesQuery, rootBoardPagesQuery, versionsQuery, workspaceQuery, workspacesQuery } from "@/lib/client/queries";
import { makeQueryClient } from "@/lib/client/query-client";
import { getDeps } from "@/lib/deps";
import { DomainError } from "@/lib/errors";
import { linkerFor } from "@/lib/media/linker-for";
import { listWorkspacesFor } from "@/lib/members/visible-workspaces";
import { listVersions } from "@/lib/versions/list-versions";
import { toWorkspaceJson } from "@/lib/workspaces/present";
import { authorizedWorkspace, pageRequest } from "./session";

/**
 * Server-side prefetch for the first paint: the same lib functions the /v1 routes call, with the
 * signed-in person as principal, stored under the query keys the client components read. The
 * browser then continues through /v1 itself; nothing here is a second API.
 */
/**
 * The workspace of a page (authorized to read, as /v1 reads it) with the person's role there, which
 * the controls follow; null (the page is not found) when it is not theirs.
 */
export async function workspaceContext(slug: string, principal: SessionPrincipal) {
  const workspace = await authorizedWorkspace(principal, slug, "read");
  const role = workspace ? sessionRole(principal, workspace.id) : null;
  return workspace && role ? { deps: await getDeps(), workspace, principal, role, qc: makeQueryClient() } : null;
}

type Ctx = NonNullable<Awaited<ReturnType<typeof workspaceContext>>>;
const first = (perPage: number) => ({ page: 1, perPage });

export async function prefetchWorkspaces(ctx: Ctx) {
  ctx.qc.setQueryData(workspacesQuery().queryKey, { data: await listWorkspacesFor(ctx.deps.db, ctx.principal) });
  ctx.qc.setQueryData(workspaceQuery(ctx.workspace.slug).queryKey, { data: toWorkspaceJson(ctx.workspace) });
}

/** The tree open down to `boardToken`: the roots, then the children of every board on the path. */
export async function prefetchTree(ctx: Ctx, boardToken?: string): Promise<string[]> {
  const { deps, workspace, principal, qc } = ctx;
  const slug = workspace.slug;
  // The tree's levels are infinite queries: the first page of each, as the browser would read it.
  const firstPage = <T>(page: T) => ({ pages: [page], pageParams: [1] });
  qc.setQueryData(rootBoardPagesQuery(slug).queryKey, firstPage(await listBoards(deps, { workspace, principal, page: first(TREE_PAGE_SIZE) })));
  const path: string[] = [];
  for (let token: string | null = boardToken ?? null; token; ) {
    const { board, parentToken } = await getBoardOrThrow(deps.db, { workspace, principal, token });
    qc.setQueryData(boardQuery(slug, token).queryKey, { data: toBoardJson(board, parentToken) });
    path.unshift(token);
    token = parentToken;
  }
  await Promise.all(path.map(async (token) => qc.setQueryData(childBoardPagesQuery(slug, token).queryKey, firstPage(await listChildren(deps, { workspace, principal, token, page: first(TREE_PAGE_SIZE) })))));
  return path;
}

export async function prefetchAssetGrid(ctx: Ctx, scope: { kind: "board"; token: string; nested: boolean } | { kind: "all" }) {
  const { deps, workspace, principal, qc } = ctx;
  const link = await linkerFor(await pageRequest(), deps);
  const page = first(ASSET_PAGE_SIZE);
  const result =
    scope.kind === "board"
      ? await listBoardAssets(deps, { workspace, principal, token: scope.token, nested: scope.nested, page, link })
      : await listWorkspaceAssets(deps, { workspace, principal, page, link });
  qc.setQueryData(assetListQuery(workspace.slug, scope).queryKey, { pages: [result], pageParams: [1] });
}

/** The asset and its first page of versions; null when the asset is not in this workspace. */
export async function prefetchAsset(ctx: Ctx, token: string) {
  const { deps, workspace, qc } = ctx;
  const link = await linkerFor(await pageRequest(), deps);
  try {
    const asset = await presentAsset(deps.db, await getAssetOrThrow(deps.db, workspace, token), link);
    qc.setQueryData(assetQuery(workspace.slug, token).queryKey, { data: asset });
    qc.setQueryData(versionsQuery(workspace.slug, token).queryKey, await listVersions(deps, { workspace, token, page: first(VERSIONS_PAGE_SIZE), surface: "rest", link }));
    return asset;
  } catch (err) {
    if (err instanceof DomainError && err.code === "asset_not_found") return null;
    throw err;
  }
}

export const dehydrated = (qc: QueryClient) => dehydrate(qc);
