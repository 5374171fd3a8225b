"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { BoardStateBadge } from "@/app/_components/ui/badge";
import { Spinner } from "@/app/_components/ui/empty-state";
import { describeError } from "@/lib/client/errors";
import { TREE_PAGE_SIZE, childrenQuery, rootBoardsQuery } from "@/lib/client/queries";
import type { Board, Page } from "@/lib/client/types";
import { CreateBoardForm } from "./create-board-form";

type TreeProps = { slug: string; activeToken?: string; openPath: string[] };

function More({ list }: { list: Page<Board> }) {
  if (list.pagy.total_count <= TREE_PAGE_SIZE) return null;
  return <li className="px-2 text-xs text-neutral-500">Showing the first {TREE_PAGE_SIZE} of {list.pagy.total_count}.</li>;
}

function Node({ board, depth, ...tree }: TreeProps & { board: Board; depth: number }) {
  const [open, setOpen] = useState(tree.openPath.includes(board.token));
  const children = useQuery({ ...childrenQuery(tree.slug, board.token), enabled: open });
  const active = tree.activeToken === board.token;
  const childList = children.data;
  return (
    <li>
      <div className={`group flex items-center gap-1 rounded-md pr-1 ${active ? "bg-indigo-50" : "hover:bg-neutral-100"}`} style={{ paddingLeft: `${depth * 0.75}rem` }}>
        <button
          type="button"
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
          aria-label={`${open ? "Hide" : "Show"} sub-boards of ${board.title}`}
          className="flex h-6 w-6 shrink-0 items-center justify-center rounded text-neutral-500 hover:bg-neutral-200 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          <span aria-hidden className={`inline-block transition-transform ${open ? "rotate-90" : ""}`}>
            ▸
          </span>
        </button>
        <Link
          href={`/w/${tree.slug}/boards/${board.token}`}
          aria-current={active ? "page" : undefined}
          className={`min-w-0 flex-1 truncate py-1 text-sm ${active ? "font-semibold text-indigo-900" : "text-neutral-800"} ${board.state === "trashed" ? "line-through decoration-neutral-400" : ""}`}
        >
          {board.title}
        </Link>
        {board.state !== "active" ? <BoardStateBadge state={board.state} /> : null}
      </div>
      {open ? (
        <ul className="space-y-0.5">
          {children.isPending ? (
            <li className="py-1" style={{ paddingLeft: `${(depth + 2) * 0.75}rem` }}>
              <Spinner label="Loading sub-boards" />
            </li>
          ) : children.isError ? (
            <li className="py-1 text-xs text-red-700" style={{ paddingLeft: `${(depth + 2) * 0.75}rem` }}>
              {describeError(children.error)}
            </li>
          ) : childList && childList.data.length === 0 ? (
            <li className="py-1 text-xs text-neutral-500" style={{ paddingLeft: `${(depth + 2) * 0.75}rem` }}>
              No sub-boards
            </li>
          ) : (
            childList?.data.map((child) => <Node key={child.token} board={child} depth={depth + 1} {...tree} />)
          )}
          {childList ? <More list={childList} /> : null}
        </ul>
      ) : null}
    </li>
  );
}

/** The workspace's boards as a tree: sub-boards load when opened; the path to the current board starts open. */
export function BoardTree(props: TreeProps) {
  const roots = useQuery(rootBoardsQuery(props.slug));
  return (
    <nav aria-label="Boards" className="space-y-3">
      <Link
        href={`/w/${props.slug}/boards`}
        aria-current={!props.activeToken ? "page" : undefined}
        className={`block rounded-md px-2 py-1 text-sm ${!props.activeToken ? "bg-indigo-50 font-semibold text-indigo-900" : "text-neutral-800 hover:bg-neutral-100"}`}
      >
        All assets
      </Link>
      {roots.isPending ? (
        <Spinner label="Loading boards" />
      ) : roots.isError ? (
        <p className="text-sm text-red-700">{describeError(roots.error)}</p>
      ) : roots.data.data.length === 0 ? (
        <p className="px-2 text-sm text-neutral-500">No boards yet.</p>
      ) : (
        <ul className="space-y-0.5">
          {roots.data.data.map((b) => (
            <Node key={b.token} board={b} depth={0} {...props} />
          ))}
          <More list={roots.data} />
        </ul>
      )}
      <CreateBoardForm slug={props.slug} label="New board" />
    </nav>
  );
}
