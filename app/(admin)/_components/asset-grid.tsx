"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { EmptyState, Skeleton } from "@/app/_components/ui/empty-state";
import { describeError } from "@/lib/client/errors";
import { columnsFor, isGridKey, nextGridIndex } from "@/lib/client/grid/grid-keys";
import { extendTo, isSelected, toggle, type Selection } from "@/lib/client/grid/selection";
import { assetListQuery, type AssetListScope } from "@/lib/client/queries";
import type { AiSearchPage, Asset } from "@/lib/client/types";
import { AssetCard } from "./asset-card";
import { AssetLightbox } from "./asset-lightbox";

const GAP = 12;
const MIN_CARD = 180;
/** The card's caption under its square thumbnail (title and one line of facts, fixed in asset-card.tsx). */
const CAPTION = 62;
const OVERSCAN_ROWS = 2;
/** Before the browser has measured the list (and on the server), the first rows are laid out for this size. */
const INITIAL_RECT = { width: 1000, height: 800 };

export type GridSelection = { selection: Selection; onChange: (next: Selection) => void };
export type GridList = { assets: Asset[]; total: number };

function useWidth(el: React.RefObject<HTMLElement | null>) {
  const [width, setWidth] = useState(INITIAL_RECT.width);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    // The observer reports the first size as soon as it observes, then every change.
    const observer = new ResizeObserver(() => setWidth(node.clientWidth));
    observer.observe(node);
    return () => observer.disconnect();
  }, [el]);
  return width;
}

/**
 * An infinite, virtualized grid of assets: only the rows in and near the viewport are in the DOM
 * (rows of cards, as many columns as fit), and the next page loads as the end comes near. Arrow
 * keys move focus card to card (one tab stop for the grid), scrolling the list as needed; Enter
 * opens the asset, `v` the lightbox, Space selects. Selection is optional (`select`).
 */
export function AssetGrid({ slug, scope, empty, select, onList, playerToken = null }: {
  slug: string; scope: AssetListScope; empty: ReactNode; select?: GridSelection; onList?: (list: GridList) => void; playerToken?: string | null;
}) {
  const list = useInfiniteQuery(assetListQuery(slug, scope));
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const scroller = useRef<HTMLDivElement>(null);
  const width = useWidth(scroller);
  const columns = columnsFor(width, MIN_CARD, GAP);
  const cardWidth = (width - GAP * (columns - 1)) / columns;
  const rowHeight = cardWidth + CAPTION + GAP;

  const assets = list.data?.pages.flatMap((p) => p.data) ?? [];
  const total = list.data?.pages[0]?.pagy.total_count ?? 0;
  const rowCount = Math.ceil(assets.length / columns) + (hasNextPage ? 1 : 0);

  // The component reads the virtualizer afresh on every render and passes none of its functions to memoized children.
  // eslint-disable-next-line react-hooks/incompatible-library -- see above
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: OVERSCAN_ROWS,
    initialRect: INITIAL_RECT,
  });
  useEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);
  const rows = virtualizer.getVirtualItems();

  const lastRow = rows.at(-1)?.index ?? 0;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastRow >= rowCount - 1 - OVERSCAN_ROWS) void fetchNextPage();
  }, [lastRow, rowCount, hasNextPage, isFetchingNextPage, fetchNextPage]);

  useEffect(() => {
    onList?.({ assets, total });
    // The pages array changes identity only when a page arrives or the list is refetched.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list.data, onList]);

  // Roving focus: the index of the card that holds the grid's tab stop, and whether it should
  // take focus as soon as its row is rendered (after an arrow key scrolled it into view).
  const [focusIndex, setFocusIndex] = useState(0);
  const pendingFocus = useRef(false);
  useEffect(() => {
    if (!pendingFocus.current) return;
    const el = scroller.current?.querySelector<HTMLElement>(`[data-asset-index="${focusIndex}"]`);
    if (!el) return;
    pendingFocus.current = false;
    el.focus({ preventScroll: true });
  });
  const moveFocus = useCallback(
    (index: number) => {
      setFocusIndex(index);
      pendingFocus.current = true;
      virtualizer.scrollToIndex(Math.floor(index / columns), { align: "auto" });
    },
    [virtualizer, columns],
  );

  const [lightbox, setLightbox] = useState<number | null>(null);
  const order = assets.map((a) => a.token);
  const pick = (token: string, how: "toggle" | "range") => {
    if (!select) return;
    select.onChange(how === "range" ? extendTo(select.selection, token, order) : toggle(select.selection, token));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (!target.matches("[data-asset-index]") || e.altKey) return;
    if (isGridKey(e.key)) {
      e.preventDefault();
      const visibleRows = Math.max(1, Math.floor((scroller.current?.clientHeight ?? rowHeight) / rowHeight));
      const next = nextGridIndex(e.key, focusIndex, columns, assets.length, { ctrl: e.ctrlKey || e.metaKey, rowsPerPage: visibleRows });
      // At the end of what is loaded, ask for the next page so the following key press can go on.
      if (next >= assets.length - columns && hasNextPage && !isFetchingNextPage) void fetchNextPage();
      moveFocus(next);
    } else if (e.key === " " && select && assets[focusIndex]) {
      e.preventDefault();
      pick(assets[focusIndex].token, e.shiftKey ? "range" : "toggle");
    } else if ((e.key === "v" || e.key === "V") && !e.ctrlKey && !e.metaKey && assets[focusIndex]) {
      e.preventDefault();
      setLightbox(focusIndex);
    }
  };

  if (list.isPending) {
    return (
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5 xl:grid-cols-6" aria-busy="true">
        {Array.from({ length: 12 }, (_, i) => <Skeleton key={i} className="aspect-[4/5]" />)}
      </div>
    );
  }
  if (list.isError) return <Alert>{describeError(list.error)}</Alert>;

  const explanation = (list.data.pages[0] as AiSearchPage | undefined)?.explanation;
  // The grid keeps one tab stop: the focused card, or the first rendered one when that card has been scrolled out of the DOM.
  const firstRendered = (rows[0]?.index ?? 0) * columns;
  const lastRendered = ((rows.at(-1)?.index ?? 0) + 1) * columns - 1;
  const wanted = Math.min(focusIndex, Math.max(0, assets.length - 1));
  const tabStop = wanted >= firstRendered && wanted <= lastRendered ? wanted : firstRendered;
  return (
    <section aria-label="Assets" className="space-y-3">
      {explanation ? <Alert tone="info">How the query was read: {explanation}</Alert> : null}
      {assets.length > 0 ? (
        <p className="text-sm text-neutral-600" aria-live="polite">
          {total} {total === 1 ? "asset" : "assets"}
          {assets.length < total ? <span className="text-neutral-500"> · {assets.length} loaded</span> : null}
        </p>
      ) : null}
      <div ref={scroller} className="h-[calc(100vh-10rem)] min-h-[20rem] overflow-y-auto overscroll-contain" data-testid="asset-scroller">
        {assets.length === 0 ? (
          empty
        ) : (
          <div
            role="grid"
            aria-label="Assets"
            aria-rowcount={Math.ceil(total / columns)}
            aria-colcount={columns}
            aria-multiselectable={select ? true : undefined}
            onKeyDown={onKeyDown}
            className="relative w-full"
            style={{ height: virtualizer.getTotalSize() }}
          >
            {rows.map((row) => {
              const start = row.index * columns;
              const cells = assets.slice(start, start + columns);
              return (
                <div
                  key={row.key}
                  role="row"
                  aria-rowindex={row.index + 1}
                  data-index={row.index}
                  ref={virtualizer.measureElement}
                  className="absolute top-0 left-0 grid w-full"
                  style={{ transform: `translateY(${row.start}px)`, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`, columnGap: GAP, paddingBottom: GAP }}
                >
                  {cells.length === 0 ? (
                    <div role="gridcell" className="col-span-full flex justify-center py-6 text-sm text-neutral-500">
                      {isFetchingNextPage ? "Loading more…" : ""}
                    </div>
                  ) : (
                    cells.map((a, i) => (
                      <AssetCard
                        key={a.token}
                        slug={slug}
                        asset={a}
                        index={start + i}
                        tabbable={start + i === tabStop}
                        onFocusCard={() => setFocusIndex(start + i)}
                        select={select ? { selected: isSelected(select.selection, a.token), onPick: (how) => pick(a.token, how) } : undefined}
                        onPreview={() => setLightbox(start + i)}
                      />
                    ))
                  )}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {hasNextPage ? (
        <div className="flex justify-center">
          <Button onClick={() => void fetchNextPage()} disabled={isFetchingNextPage}>
            {isFetchingNextPage ? "Loading…" : "Load more"}
          </Button>
        </div>
      ) : null}
      {lightbox !== null && assets[lightbox] ? (
        <AssetLightbox
          slug={slug}
          assets={assets}
          total={total}
          index={lightbox}
          hasMore={hasNextPage}
          loadMore={() => void (isFetchingNextPage ? undefined : fetchNextPage())}
          onIndex={setLightbox}
          playerToken={playerToken}
          onClose={(last) => {
            setLightbox(null);
            moveFocus(last);
          }}
        />
      ) : null}
    </section>
  );
}

export function NoAssets({ title, children }: { title: string; children?: ReactNode }) {
  return <EmptyState title={title}>{children}</EmptyState>;
}
