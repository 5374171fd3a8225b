"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { BoardStateBadge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Dialog } from "@/app/_components/ui/dialog";
import { SelectField, TextField } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { boardQuery, keys } from "@/lib/client/queries";
import type { BoardState } from "@/lib/client/types";
import { useWorkspaceRole } from "@/lib/client/workspace-role";

const STATES: { value: BoardState; label: string; hint: string }[] = [
  { value: "active", label: "Active", hint: "Assets can be added, edited and versioned." },
  { value: "read_only", label: "Read-only", hint: "Assets stay visible; versions cannot change." },
  { value: "archived", label: "Archived", hint: "Kept for reference; versions cannot change." },
  { value: "trashed", label: "Trashed", hint: "On its way out; versions cannot change." },
];

/** The board's title and state, with rename, archive/restore and state changes. */
export function BoardHeader({ slug, token }: { slug: string; token: string }) {
  const qc = useQueryClient();
  const { data } = useQuery(boardQuery(slug, token));
  const board = data?.data;
  const canWrite = useWorkspaceRole().can("write");
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState("");
  const [state, setState] = useState<BoardState>("active");
  const update = useMutation({
    mutationFn: (changes: { title?: string; state?: BoardState }) => api.boards.update(slug, token, changes),
    onSuccess: async () => {
      setEditing(false);
      await qc.invalidateQueries({ queryKey: keys.boards(slug) });
    },
  });
  if (!board) return null;
  const archived = board.state === "archived";
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        {board.parent_token ? (
          <Link href={`/w/${slug}/boards/${board.parent_token}`} className="text-sm text-indigo-700 hover:underline">
            ↑ Parent board
          </Link>
        ) : null}
        <h1 className="text-2xl font-semibold">{board.title}</h1>
        <BoardStateBadge state={board.state} />
        {canWrite ? (
        <div className="ml-auto flex gap-2">
          <Button
            size="sm"
            onClick={() => {
              setTitle(board.title);
              setState(board.state);
              setEditing(true);
            }}
          >
            Rename or change state
          </Button>
          <Button size="sm" onClick={() => update.mutate({ state: archived ? "active" : "archived" })} disabled={update.isPending}>
            {archived ? "Restore" : "Archive"}
          </Button>
        </div>
        ) : null}
      </div>
      {update.isError && !editing ? <Alert>{describeError(update.error)}</Alert> : null}
      <Dialog open={editing} onClose={() => setEditing(false)} title="Edit board">
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            const changes: { title?: string; state?: BoardState } = {};
            if (title.trim() && title.trim() !== board.title) changes.title = title.trim();
            if (state !== board.state) changes.state = state;
            if (Object.keys(changes).length) update.mutate(changes);
            else setEditing(false);
          }}
        >
          <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={500} />
          <SelectField label="State" value={state} onChange={(e) => setState(e.target.value as BoardState)} hint={STATES.find((s) => s.value === state)?.hint}>
            {STATES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </SelectField>
          {update.isError ? <Alert>{describeError(update.error)}</Alert> : null}
          <div className="flex justify-end gap-2">
            <Button onClick={() => setEditing(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={update.isPending}>
              Save
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}
