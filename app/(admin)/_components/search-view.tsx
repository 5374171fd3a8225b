"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { inputClass } from "@/app/_components/ui/field";
import { AssetGrid, NoAssets } from "./asset-grid";
import { useSlashToFocus } from "./keyboard-shortcuts";

type Mode = "text" | "ai";

/**
 * Search across the workspace: ranked full-text search, or ai_search for questions in plain
 * language ("videos from last week"), which also says how it read the query.
 */
export function SearchView({ slug, initialQuery, initialMode }: { slug: string; initialQuery: string; initialMode: Mode }) {
  const router = useRouter();
  const [draft, setDraft] = useState(initialQuery);
  const [mode, setMode] = useState<Mode>(initialMode);
  const field = useRef<HTMLInputElement>(null);
  useSlashToFocus(field);
  const submit = (q: string, m: Mode) => router.replace(`/w/${slug}/search?${new URLSearchParams({ q, mode: m })}`);
  return (
    <div className="space-y-5">
      <h1 className="text-2xl font-semibold">Search</h1>
      <form
        role="search"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (draft.trim()) submit(draft.trim(), mode);
        }}
      >
        <div className="min-w-64 flex-1">
          <label htmlFor="search-query" className="mb-1 block text-sm font-medium">
            {mode === "ai" ? "Describe what you are looking for" : "Words in titles, descriptions, text, tags or fields"}
          </label>
          <input
            id="search-query"
            ref={field}
            type="search"
            aria-keyshortcuts="/"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder={mode === "ai" ? "e.g. landscape photos from last week, not blue" : "e.g. logo"}
            className={inputClass}
            maxLength={500}
          />
        </div>
        <fieldset className="flex gap-3 text-sm">
          <legend className="sr-only">Search mode</legend>
          {(["text", "ai"] as const).map((m) => (
            <label key={m} className="flex items-center gap-1.5">
              <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
              {m === "text" ? "Full text" : "AI search"}
            </label>
          ))}
        </fieldset>
        <Button type="submit" variant="primary">
          Search
        </Button>
      </form>
      {initialQuery ? (
        <AssetGrid
          slug={slug}
          scope={initialMode === "ai" ? { kind: "ai_search", query: initialQuery } : { kind: "search", query: initialQuery }}
          empty={<NoAssets title={`No assets match “${initialQuery}”`}>Try other words{initialMode === "text" ? ", or AI search" : ""}.</NoAssets>}
        />
      ) : (
        <NoAssets title="Search this workspace">Type a query above.</NoAssets>
      )}
    </div>
  );
}
