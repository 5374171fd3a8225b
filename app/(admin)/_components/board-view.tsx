"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { inputClass } from "@/app/_components/ui/field";
import { emptySelection, type Selection } from "@/lib/client/grid/selection";
import { useHydrated } from "@/lib/client/hydrated";
import { boardQuery, keys, workspaceQuery, type AssetListScope } from "@/lib/client/queries";
import { useWorkspaceRole } from "@/lib/client/workspace-role";
import { AssetGrid, NoAssets, type GridList } from "./asset-grid";
import { BoardHeader } from "./board-header";
import { BulkBar } from "./bulk-bar";
import { CreateBoardForm } from "./create-board-form";
import { useSlashToFocus } from "./keyboard-shortcuts";
import { Uploader } from "./uploader";

/**
 * A board: header and actions, drag-and-drop uploads into it, and its assets (optionally with its
 * sub-boards'), with multi-select and bulk actions. A person who may not write (a viewer) gets no
 * upload area and no bulk writes (delete, tag); `downloadToken` is a board access token the page
 * minted, for the originals' media links and the lightbox's video streams.
 */
export function BoardView({ slug, token, downloadToken = null }: { slug: string; token: string; downloadToken?: string | null }) {
  const qc = useQueryClient();
  const { data: ws } = useQuery(workspaceQuery(slug));
  const { data: board } = useQuery(boardQuery(slug, token));
  const [nested, setNested] = useState(false);
  const [filter, setFilter] = useState("");
  const [query, setQuery] = useState("");
  const active = board?.data.state === "active";
  const canWrite = useWorkspaceRole().can("write");
  const filterField = useRef<HTMLInputElement>(null);
  useSlashToFocus(filterField);
  // The filter and the switch are server-rendered: typed or ticked before hydration, they would
  // show a filter that React's state (and so the list) does not have.
  const hydrated = useHydrated();
  const scope: AssetListScope = { kind: "board", token, nested, query: query || undefined };
  const [selection, setSelection] = useState<Selection>(emptySelection);
  const [list, setList] = useState<GridList>({ assets: [], total: 0 });
  const onList = useCallback((l: GridList) => setList(l), []);
  // A selection belongs to one list: changing the filter or the sub-boards switch starts afresh.
  const rescope = (change: () => void) => {
    change();
    setSelection(emptySelection());
  };
  return (
    <div className="space-y-6">
      <BoardHeader slug={slug} token={token} />
      {/* Viewers get no upload area: uploading is a write (the server refuses it too). */}
      {canWrite ? (
      <section aria-labelledby="upload-heading" className="space-y-2">
        <h2 id="upload-heading" className="text-sm font-semibold text-neutral-700">
          Upload to this board
        </h2>
        {ws && active ? (
          <Uploader
            slug={slug}
            storageKind={ws.data.storage_kind}
            target={{ kind: "asset", collectionToken: token }}
            targetKey={`board:${token}`}
            height={260}
            note={ws.data.storage_kind === "s3" ? "Files of 5 MiB and more go up in 8 MiB parts." : "Files go up in resumable 8 MiB chunks."}
            onAsset={() => void qc.invalidateQueries({ queryKey: keys.assetLists(slug) })}
          />
        ) : board ? (
          <Alert tone="info">This board is {board.data.state.replace("_", "-")}: restore it to upload.</Alert>
        ) : null}
      </section>
      ) : null}
      <section aria-labelledby="assets-heading" className="space-y-3">
        <div className="flex flex-wrap items-end gap-3">
          <h2 id="assets-heading" className="text-lg font-semibold">
            Assets
          </h2>
          <form
            role="search"
            className="ml-auto flex gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              rescope(() => setQuery(filter.trim()));
            }}
          >
            <label htmlFor="board-filter" className="sr-only">
              Filter this board
            </label>
            <input id="board-filter" ref={filterField} type="search" aria-keyshortcuts="/" value={filter} onChange={(e) => setFilter(e.target.value)} disabled={!hydrated} placeholder="Filter this board" className={`${inputClass} w-56 py-1.5`} />
          </form>
          <label className="flex items-center gap-2 text-sm text-neutral-700">
            <input type="checkbox" checked={nested} onChange={(e) => rescope(() => setNested(e.target.checked))} disabled={!hydrated} className="h-4 w-4 rounded border-neutral-300" />
            Include sub-boards
          </label>
        </div>
        <BulkBar slug={slug} scope={scope} selection={selection} onSelectionChange={setSelection} loaded={list.assets} total={list.total} canWrite={canWrite} downloadToken={downloadToken} />
        <AssetGrid
          slug={slug}
          scope={scope}
          select={{ selection, onChange: setSelection }}
          onList={onList}
          playerToken={downloadToken}
          empty={<NoAssets title={query ? `Nothing here matches “${query}”` : "No assets on this board yet"}>{query || !canWrite ? null : "Drop files into the upload area above."}</NoAssets>}
        />
      </section>
      <section aria-labelledby="sub-heading" className="max-w-md">
        <h2 id="sub-heading" className="sr-only">
          Sub-boards
        </h2>
        <CreateBoardForm slug={slug} parentToken={token} label="New sub-board" />
      </section>
    </div>
  );
}
