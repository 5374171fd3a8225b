import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { api } from "./api";
import type { Asset, Page } from "./types";

/**
 * Query keys and fetchers for every resource the UI reads. Keys nest so that invalidating a
 * prefix refreshes everything under it: ["assets", slug, token] covers the asset and its versions,
 * ["boards", slug] the whole tree.
 */
export const keys = {
  workspaces: () => ["workspaces"] as const,
  workspace: (slug: string) => ["workspaces", slug] as const,
  boards: (slug: string) => ["boards", slug] as const,
  board: (slug: string, token: string) => ["boards", slug, token] as const,
  assetLists: (slug: string) => ["asset-lists", slug] as const,
  asset: (slug: string, token: string) => ["assets", slug, token] as const,
  tokens: (slug: string) => ["tokens", slug] as const,
  triggers: (slug: string) => ["triggers", slug] as const,
};

/** The largest page /v1 serves (contract §1): a board of thousands of assets loads in fewer requests. */
export const ASSET_PAGE_SIZE = 100;
/** Board trees are read a hundred nodes per level; further pages load as the level is scrolled or paged through. */
export const TREE_PAGE_SIZE = 100;

const nextPage = (last: Page<unknown>) => (last.pagy.current_page < last.pagy.total_pages ? last.pagy.current_page + 1 : undefined);

export const workspacesQuery = () => queryOptions({ queryKey: keys.workspaces(), queryFn: () => api.admin.workspaces() });
export const workspaceQuery = (slug: string) => queryOptions({ queryKey: keys.workspace(slug), queryFn: () => api.admin.workspace(slug) });

/** The first page of top-level boards (pickers that need a short list). */
export const rootBoardsQuery = (slug: string) =>
  queryOptions({ queryKey: [...keys.boards(slug), "roots"], queryFn: () => api.boards.list(slug, { per_page: TREE_PAGE_SIZE }) });
export const boardQuery = (slug: string, token: string) => queryOptions({ queryKey: keys.board(slug, token), queryFn: () => api.boards.get(slug, token) });
export const childrenQuery = (slug: string, token: string) =>
  queryOptions({ queryKey: [...keys.board(slug, token), "children"], queryFn: () => api.boards.children(slug, token, { per_page: TREE_PAGE_SIZE }) });

/** The board tree's top level, every page of it (under the ["boards", slug] prefix, so tree invalidations reach it). */
export const rootBoardPagesQuery = (slug: string) =>
  infiniteQueryOptions({
    queryKey: [...keys.boards(slug), "roots", "pages"],
    initialPageParam: 1,
    getNextPageParam: nextPage,
    queryFn: ({ pageParam }) => api.boards.list(slug, { page: pageParam, per_page: TREE_PAGE_SIZE }),
  });
/** A board's direct sub-boards, every page of them. */
export const childBoardPagesQuery = (slug: string, token: string) =>
  infiniteQueryOptions({
    queryKey: [...keys.board(slug, token), "children", "pages"],
    initialPageParam: 1,
    getNextPageParam: nextPage,
    queryFn: ({ pageParam }) => api.boards.children(slug, token, { page: pageParam, per_page: TREE_PAGE_SIZE }),
  });

export type AssetListScope =
  | { kind: "board"; token: string; nested: boolean; query?: string }
  | { kind: "all"; query?: string }
  | { kind: "search"; query: string }
  | { kind: "ai_search"; query: string };

/** One page of an asset list scope, through /v1. */
export function fetchAssetPage(slug: string, scope: AssetListScope, pageNumber: number) {
  const page = { page: pageNumber, per_page: ASSET_PAGE_SIZE };
  switch (scope.kind) {
    case "board":
      return api.boards.assets(slug, scope.token, { ...page, nested_assets: scope.nested || undefined, query: scope.query });
    case "all":
      return api.assets.list(slug, { ...page, query: scope.query });
    case "search":
      return api.assets.search(slug, { ...page, query: scope.query });
    case "ai_search":
      return api.assets.aiSearch(slug, { ...page, query: scope.query });
  }
}

/** One infinite list of assets: a board (optionally with its sub-boards), the workspace, or search results. */
export const assetListQuery = (slug: string, scope: AssetListScope) =>
  infiniteQueryOptions({
    queryKey: [...keys.assetLists(slug), scope],
    initialPageParam: 1,
    getNextPageParam: nextPage,
    queryFn: ({ pageParam }) => fetchAssetPage(slug, scope, pageParam),
  });

/**
 * Every asset of a list scope, read page by page through the same /v1 list route the grid uses
 * (for "select all on the board", which covers pages the grid never loaded). Reads every page
 * before anything acts on them, so deleting the first items cannot shift later pages under it.
 */
export async function listEveryAsset(slug: string, scope: AssetListScope, signal?: AbortSignal): Promise<Asset[]> {
  const all: Asset[] = [];
  for (let page = 1; ; page++) {
    signal?.throwIfAborted();
    const res = await fetchAssetPage(slug, scope, page);
    all.push(...res.data);
    if (page >= res.pagy.total_pages || res.data.length === 0) return all;
  }
}

const isVideo = (a: Asset) => a.media_type.startsWith("video/");

/**
 * Whether the asset page should keep re-reading the asset: a video without a stream that has not
 * failed (GET asset is also what starts an encode on plans that encode on first read), or a fresh
 * upload whose thumbnails are still being made. The retry endpoint is never polled (interface).
 */
export function assetIsSettling(a: Asset | undefined, now = Date.now()): boolean {
  if (!a) return false;
  if (isVideo(a) && a.stream_url === null && a.encode_status !== "failed") return true;
  const fresh = now - Date.parse(a.updated_at) < 120_000;
  return fresh && a.thumbnails.length === 0 && (a.media_type.startsWith("image/") || isVideo(a));
}

export const ASSET_POLL_MS = 3000;

export const assetQuery = (slug: string, token: string, opts: { poll?: boolean } = {}) =>
  queryOptions({
    queryKey: keys.asset(slug, token),
    queryFn: () => api.assets.get(slug, token),
    refetchInterval: (q) => (opts.poll !== false && assetIsSettling(q.state.data?.data) ? ASSET_POLL_MS : false),
  });

export const VERSIONS_PAGE_SIZE = 100;
export const versionsQuery = (slug: string, token: string, page = 1) =>
  queryOptions({
    queryKey: [...keys.asset(slug, token), "versions", page],
    queryFn: () => api.assets.versions(slug, token, { page, per_page: VERSIONS_PAGE_SIZE }),
  });

export const tokensQuery = (slug: string) => queryOptions({ queryKey: keys.tokens(slug), queryFn: () => api.admin.tokens(slug) });
export const triggersQuery = (slug: string) => queryOptions({ queryKey: keys.triggers(slug), queryFn: () => api.triggers.list(slug), retry: false });
export const deliveriesQuery = (slug: string, id: string) =>
  queryOptions({ queryKey: [...keys.triggers(slug), id, "deliveries"], queryFn: () => api.triggers.deliveries(id), retry: false });
