"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { BoardStateBadge, boardStateLabel } from "@/app/_components/ui/badge";
import { Spinner } from "@/app/_components/ui/empty-state";
import { describeError } from "@/lib/client/errors";
import { treeKeyAction } from "@/lib/client/grid/tree-keys";
import { childBoardPagesQuery, rootBoardPagesQuery } from "@/lib/client/queries";
import type { Board } from "@/lib/client/types";
import { CreateBoardForm } from "./create-board-form";

type TreeProps = { slug: string; activeToken?: string; openPath: string[] };

/** The roving tabindex of the tree: which item Tab lands on. */
const Roving = createContext<{ focused: string | null; setFocused: (token: string) => void }>({ focused: null, setFocused: () => {} });

const items = (tree: Element | null) => Array.from(tree?.querySelectorAll<HTMLElement>('[role="treeitem"]') ?? []);

function focusItem(el: HTMLElement | null | undefined, setFocused: (token: string) => void) {
  if (!el?.dataset.token) return;
  setFocused(el.dataset.token);
  el.focus();
}

/**
 * One level of the tree (the top level, or a board's sub-boards), read page by page: the next page
 * loads when the level's end scrolls into view, when arrowing down past its last loaded board, or
 * from the "more" button. aria-setsize is the level's full count, so a screen reader announces
 * "3 of 250" before the rest has loaded.
 */
function Level({ parent, depth, ...tree }: TreeProps & { parent: string | null; depth: number }) {
  const list = useInfiniteQuery(parent ? childBoardPagesQuery(tree.slug, parent) : rootBoardPagesQuery(tree.slug));
  const { setFocused } = useContext(Roving);
  const sentinel = useRef<HTMLLIElement>(null);
  const group = useRef<HTMLUListElement>(null);
  const focusAfterLoad = useRef<number | null>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const boards = list.data?.pages.flatMap((p) => p.data) ?? [];
  const total = list.data?.pages[0]?.pagy.total_count ?? 0;

  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    }, { rootMargin: "200px" });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  // Arrowing down past the last loaded board waits for the next page, then lands on its first board.
  useEffect(() => {
    const want = focusAfterLoad.current;
    if (want === null || boards.length <= want) return;
    focusAfterLoad.current = null;
    const own = items(group.current).filter((el) => el.parentElement?.parentElement === group.current);
    focusItem(own[want], setFocused);
  }, [boards.length, setFocused]);

  const indent = { paddingLeft: `${(depth + 1) * 0.75}rem` };
  const role = parent ? "group" : "tree";
  const label = parent ? undefined : "Board tree";
  if (list.isPending) {
    return (
      <ul role={role} aria-label={label} aria-busy="true" className="space-y-0.5">
        <li role="none" className="py-1" style={indent}>
          <Spinner label={parent ? "Loading sub-boards" : "Loading boards"} />
        </li>
      </ul>
    );
  }
  if (list.isError) {
    return (
      <ul role={role} aria-label={label}>
        <li role="none" className="py-1 text-xs text-red-700" style={indent}>
          {describeError(list.error)}
        </li>
      </ul>
    );
  }
  const loadMore = () => {
    focusAfterLoad.current = boards.length;
    if (!isFetchingNextPage) void fetchNextPage();
  };
  return (
    <ul role={role} aria-label={label} ref={group} className="space-y-0.5">
      {boards.length === 0 ? (
        <li role="none" className="py-1 text-xs text-neutral-500" style={indent}>
          {parent ? "No sub-boards" : "No boards yet."}
        </li>
      ) : (
        boards.map((b, i) => (
          <Node key={b.token} board={b} depth={depth} position={i + 1} setSize={total} firstOfTree={!parent && i === 0} onDownAtEnd={hasNextPage && i === boards.length - 1 ? loadMore : undefined} {...tree} />
        ))
      )}
      {hasNextPage ? (
        <li role="none" ref={sentinel} className="py-1" style={indent}>
          <button
            type="button"
            tabIndex={-1}
            onClick={() => void fetchNextPage()}
            disabled={isFetchingNextPage}
            className="text-xs text-indigo-700 hover:underline disabled:text-neutral-500"
          >
            {isFetchingNextPage ? "Loading more boards…" : `Show more (${boards.length} of ${total})`}
          </button>
        </li>
      ) : null}
    </ul>
  );
}

function Node({ board, depth, position, setSize, firstOfTree, onDownAtEnd, ...tree }: TreeProps & {
  board: Board; depth: number; position: number; setSize: number; firstOfTree: boolean; onDownAtEnd?: () => void;
}) {
  const router = useRouter();
  const { focused, setFocused } = useContext(Roving);
  const [open, setOpen] = useState(tree.openPath.includes(board.token));
  const active = tree.activeToken === board.token;
  const href = `/w/${tree.slug}/boards/${board.token}`;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.target !== e.currentTarget || e.altKey || e.metaKey || e.ctrlKey) return;
    const self = e.currentTarget;
    const tree = self.closest('[role="tree"]');
    const all = items(tree);
    const index = all.indexOf(self);
    const action = treeKeyAction(e.key, { index, count: all.length, expanded: open });
    if (!action) return;
    e.preventDefault();
    e.stopPropagation();
    switch (action.kind) {
      case "focus":
        if (e.key === "ArrowDown" && !open && onDownAtEnd) {
          onDownAtEnd();
          return;
        }
        return focusItem(all[action.index], setFocused);
      case "expand":
        return setOpen(true);
      case "collapse":
        return setOpen(false);
      case "first-child":
        return focusItem(self.nextElementSibling?.querySelector<HTMLElement>('[role="treeitem"]'), setFocused);
      case "parent":
        return focusItem(self.closest('[role="group"]')?.previousElementSibling as HTMLElement | null, setFocused);
      case "activate":
        return router.push(href);
      case "type-ahead": {
        const label = (el: HTMLElement) => (el.getAttribute("aria-label") ?? "").toLowerCase();
        const after = [...all.slice(index + 1), ...all.slice(0, index + 1)];
        return focusItem(after.find((el) => label(el).startsWith(action.char)), setFocused);
      }
    }
  };

  // The item is the board's row; its sub-boards' group follows it rather than sitting inside it, so
  // the item's name (its title, and its state when not active) is all the text it shows (WCAG 2.5.3). aria-level, aria-setsize and
  // aria-posinset carry the structure, as in a flat tree.
  return (
    <li role="none">
      <div
        role="treeitem"
        aria-label={board.state === "active" ? board.title : `${board.title}, ${boardStateLabel(board.state)}`}
        aria-expanded={open}
        aria-level={depth + 1}
        aria-setsize={setSize}
        aria-posinset={position}
        aria-selected={active}
        data-token={board.token}
        tabIndex={focused === board.token || (focused === null && firstOfTree) ? 0 : -1}
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          if (e.target === e.currentTarget) setFocused(board.token);
        }}
        className="rounded-md focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-indigo-600"
      >
        <div className={`group flex items-center gap-1 rounded-md pr-1 ${active ? "bg-indigo-50" : "hover:bg-neutral-100"}`} style={{ paddingLeft: `${depth * 0.75}rem` }}>
          {/* For pointers; keyboards open and close with Right and Left on the item itself. */}
          <button
            type="button"
            tabIndex={-1}
            onClick={() => {
              setOpen((o) => !o);
              setFocused(board.token);
            }}
            aria-label={`${open ? "Hide" : "Show"} sub-boards of ${board.title}`}
            className="flex h-6 w-6 shrink-0 items-center justify-center rounded text-neutral-500 hover:bg-neutral-200"
          >
            <span aria-hidden className={`inline-block transition-transform ${open ? "rotate-90" : ""}`}>
              ▸
            </span>
          </button>
          {/* No prefetch: a level can hold hundreds of boards, and each prefetch renders a board page on the server. */}
          <Link
            href={href}
            prefetch={false}
            aria-current={active ? "page" : undefined}
            tabIndex={-1}
            onClick={() => setFocused(board.token)}
            className={`min-w-0 flex-1 truncate py-1 text-sm ${active ? "font-semibold text-indigo-900" : "text-neutral-800"} ${board.state === "trashed" ? "line-through decoration-neutral-400" : ""}`}
          >
            {board.title}
          </Link>
          {board.state !== "active" ? <BoardStateBadge state={board.state} /> : null}
        </div>
      </div>
      {open ? <Level parent={board.token} depth={depth + 1} {...tree} /> : null}
    </li>
  );
}

/**
 * The workspace's boards as a WAI-ARIA tree: sub-boards load when opened, every level page by
 * page; the path to the current board starts open. Keys: Up/Down move, Right opens (or enters),
 * Left closes (or goes to the parent), Home/End, Enter opens the board, a letter jumps to the next
 * board starting with it. Tab lands on the last focused board, else the current one, else the first.
 */
export function BoardTree(props: TreeProps) {
  const [focused, setFocused] = useState<string | null>(props.activeToken ?? null);
  return (
    <nav aria-label="Boards" className="space-y-3">
      <Link
        href={`/w/${props.slug}/boards`}
        aria-current={!props.activeToken ? "page" : undefined}
        className={`block rounded-md px-2 py-1 text-sm ${!props.activeToken ? "bg-indigo-50 font-semibold text-indigo-900" : "text-neutral-800 hover:bg-neutral-100"}`}
      >
        All assets
      </Link>
      <Roving.Provider value={{ focused, setFocused }}>
        <Level parent={null} depth={0} {...props} />
      </Roving.Provider>
      <CreateBoardForm slug={props.slug} label="New board" />
    </nav>
  );
}
