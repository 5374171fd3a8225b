"use client";

import { useQueryClient, type InfiniteData, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { useEffect, useSyncExternalStore } from "react";
import { keys } from "./queries";
import type { Asset, One, Page } from "./types";

/** A change as the stream names it (lib/live/message.ts on the server). */
export type LiveChange = {
  id: string;
  kind: string;
  asset?: string;
  boards?: string[] | null;
  version?: number;
  changed?: string[];
  /** encode_progress: the asset JSON's `encode_progress` as the encode just stored it. */
  progress?: NonNullable<Asset["encode_progress"]>;
  trigger?: string;
};

/** Changes arriving this close together are applied as one round of refetches. */
const BATCH_MS = 100;
/** A stream the server refused (signed out, too many tabs, unknown workspace) is tried again after this. */
const REOPEN_AFTER_REFUSAL_MS = 30_000;
/**
 * A page's first stream asks for the changes since a little before the page was requested (its
 * data was read after that), so a change made between the render and the stream is not missed.
 * The margin absorbs a clock of this computer running ahead of the server's; one running behind
 * only replays a few changes more, which costs a refetch.
 */
const SINCE_MARGIN_MS = 10_000;
let firstStream = true;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * Whether an asset list (["asset-lists", slug, scope, …]) may show one of `boards`: a board's grid
 * when the board is named (or the change named too many boards to list them), every other list
 * (the workspace's, search results) always. A key of a shape this does not know is refetched.
 */
function listShows(key: QueryKey, boards: string[] | null | undefined): boolean {
  const scope = key.slice(2).find(isObject);
  if (!scope || scope.kind !== "board" || typeof scope.token !== "string") return true;
  return boards == null || boards.includes(scope.token);
}

const startsWith = (key: QueryKey, prefix: QueryKey) => prefix.every((part, i) => key[i] === part);

/** The asset as a progress message leaves it: still encoding, at the reported point; one already streaming is left as it is. */
function withProgress(asset: Asset, progress: NonNullable<LiveChange["progress"]>): Asset {
  if (asset.stream_url || asset.encode_status === "ready" || asset.encode_status === "failed") return asset;
  return { ...asset, encode_status: "processing", encode_progress: progress };
}

/**
 * An encode's progress, written straight into the cached asset and the cached lists that hold it:
 * the message carries the whole of `encode_progress`, and a reread of the asset and every grid
 * showing it once a second for the length of an encode would cost far more than it shows.
 */
export function applyProgress(qc: QueryClient, slug: string, token: string, progress: NonNullable<LiveChange["progress"]>): void {
  qc.setQueryData<One<Asset>>(keys.asset(slug, token), (old) => (old?.data?.token === token ? { ...old, data: withProgress(old.data, progress) } : old));
  qc.setQueriesData<InfiniteData<Page<Asset>>>({ queryKey: keys.assetLists(slug) }, (old) => {
    if (!old || !Array.isArray(old.pages)) return old;
    return { ...old, pages: old.pages.map((page) => (Array.isArray(page?.data) ? { ...page, data: page.data.map((a) => (a.token === token ? withProgress(a, progress) : a)) } : page)) };
  });
}

/** Marks stale (and refetches when on screen) exactly the queries a batch of changes touched. */
export function applyChanges(qc: QueryClient, slug: string, changes: LiveChange[]): Promise<unknown> {
  const assets = new Set<string>();
  const triggers = new Set<string>();
  const boardSets: (string[] | null | undefined)[] = [];
  for (const c of changes) {
    if (c.kind === "encode_progress" && c.asset && c.progress) {
      applyProgress(qc, slug, c.asset, c.progress);
      continue;
    }
    if (c.kind === "delivery") {
      if (c.trigger) triggers.add(c.trigger);
      continue;
    }
    if (c.asset) assets.add(c.asset);
    boardSets.push(c.boards);
  }
  const work: Promise<unknown>[] = [];
  // The asset page and its version timeline live under ["assets", slug, token].
  for (const token of assets) work.push(qc.invalidateQueries({ queryKey: keys.asset(slug, token) }));
  if (boardSets.length) {
    const lists = keys.assetLists(slug);
    work.push(qc.invalidateQueries({ predicate: (q) => startsWith(q.queryKey, lists) && boardSets.some((b) => listShows(q.queryKey, b)) }));
  }
  for (const id of triggers) work.push(qc.invalidateQueries({ queryKey: [...keys.triggers(slug), id] }));
  if (triggers.size) work.push(qc.invalidateQueries({ queryKey: keys.triggers(slug), exact: true }));
  return Promise.all(work);
}

/** After a reset (changes may have been missed): everything of the workspace is read again. */
export function refetchWorkspace(qc: QueryClient, slug: string): Promise<unknown> {
  const prefixes = [keys.workspace(slug), keys.boards(slug), keys.assetLists(slug), ["assets", slug], keys.triggers(slug), keys.tokens(slug)];
  return Promise.all(prefixes.map((queryKey) => qc.invalidateQueries({ queryKey })));
}

// ---- whether the stream is up, for the few places that poll only when it is not

let connected = false;
const watchers = new Set<() => void>();
function setConnected(value: boolean) {
  if (connected === value) return;
  connected = value;
  for (const w of watchers) w();
}

/** True while this tab's live stream is open: pages drop their own polling then. */
export function useLiveConnected(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      watchers.add(onChange);
      return () => watchers.delete(onChange);
    },
    () => connected,
    () => false,
  );
}

/**
 * Opens the live stream of `slug` (null: none) and keeps the query cache in step with it. The
 * browser's EventSource reconnects by itself after a drop, sending its cursor (the server replays
 * or answers reset); a refusal (an answer other than a stream) is retried after 30 s.
 */
export function useLiveUpdates(slug: string | null) {
  const qc = useQueryClient();
  useEffect(() => {
    if (!slug || typeof EventSource === "undefined") return;
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let flush: ReturnType<typeof setTimeout> | undefined;
    let batch: LiveChange[] = [];
    const queue = (c: LiveChange) => {
      batch.push(c);
      flush ??= setTimeout(() => {
        flush = undefined;
        void applyChanges(qc, slug, batch.splice(0));
      }, BATCH_MS);
    };
    // The document's first stream: since the page was requested; after a client-side navigation: since now.
    const since = (firstStream ? Math.round(performance.timeOrigin) : Date.now()) - SINCE_MARGIN_MS;
    firstStream = false;
    const open = () => {
      // EventSource sends Last-Event-ID itself on its reconnects, and the server prefers that to `since`.
      const es = (source = new EventSource(`/api/live/${encodeURIComponent(slug)}?since=${since}`));
      es.addEventListener("ready", () => setConnected(true));
      es.addEventListener("reset", () => {
        setConnected(true);
        void refetchWorkspace(qc, slug);
      });
      es.addEventListener("change", (e) => {
        try {
          queue(JSON.parse((e as MessageEvent<string>).data) as LiveChange);
        } catch (err) {
          // A frame this page cannot read: refetch everything rather than miss what it named.
          console.warn("live update not understood; refetching the workspace", err);
          void refetchWorkspace(qc, slug);
        }
      });
      es.onerror = () => {
        setConnected(false);
        if (es.readyState !== EventSource.CLOSED) return;
        es.close();
        reopen = setTimeout(open, REOPEN_AFTER_REFUSAL_MS);
      };
    };
    open();
    return () => {
      source?.close();
      clearTimeout(reopen);
      clearTimeout(flush);
      batch = [];
      setConnected(false);
    };
  }, [slug, qc]);
}

/** Mounted once (app/providers.tsx): streams the workspace of the page shown, if any. */
export function LiveUpdates(): null {
  const match = /^\/w\/([^/]+)/.exec(usePathname() ?? "");
  useLiveUpdates(match ? decodeURIComponent(match[1]) : null);
  return null;
}
