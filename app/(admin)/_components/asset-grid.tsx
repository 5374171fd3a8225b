"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useRef, type ReactNode } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { EmptyState, Skeleton } from "@/app/_components/ui/empty-state";
import { describeError } from "@/lib/client/errors";
import { assetListQuery, type AssetListScope } from "@/lib/client/queries";
import type { AiSearchPage } from "@/lib/client/types";
import { AssetCard } from "./asset-card";

/**
 * An infinite grid of assets. The next page loads when the end scrolls into view; the "Load more"
 * button does the same for keyboards and screen readers.
 */
export function AssetGrid({ slug, scope, empty }: { slug: string; scope: AssetListScope; empty: ReactNode }) {
  const list = useInfiniteQuery(assetListQuery(slug, scope));
  const sentinel = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;

  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    }, { rootMargin: "400px" });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (list.isPending) {
    return (
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5 xl:grid-cols-6" aria-busy="true">
        {Array.from({ length: 12 }, (_, i) => <Skeleton key={i} className="aspect-[4/5]" />)}
      </div>
    );
  }
  if (list.isError) return <Alert>{describeError(list.error)}</Alert>;

  const assets = list.data.pages.flatMap((p) => p.data);
  const total = list.data.pages[0]?.pagy.total_count ?? 0;
  const explanation = (list.data.pages[0] as AiSearchPage | undefined)?.explanation;
  return (
    <section aria-label="Assets" className="space-y-3">
      {explanation ? <Alert tone="info">How the query was read: {explanation}</Alert> : null}
      {assets.length === 0 ? (
        empty
      ) : (
        <>
          <p className="text-sm text-neutral-600" aria-live="polite">
            {total} {total === 1 ? "asset" : "assets"}
          </p>
          <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5 xl:grid-cols-6">
            {assets.map((a) => (
              <AssetCard key={a.token} slug={slug} asset={a} />
            ))}
          </ul>
        </>
      )}
      <div ref={sentinel} />
      {hasNextPage ? (
        <div className="flex justify-center">
          <Button onClick={() => void fetchNextPage()} disabled={isFetchingNextPage}>
            {isFetchingNextPage ? "Loading…" : "Load more"}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

export function NoAssets({ title, children }: { title: string; children?: ReactNode }) {
  return <EmptyState title={title}>{children}</EmptyState>;
}
