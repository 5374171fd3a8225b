"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { TextArea } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { keys } from "@/lib/client/queries";

/** A stored version's comment, edited in place; "Clear" sends an empty comment, which the API stores as none. */
export function CommentEditor({ slug, token, version, comment, canEdit }: { slug: string; token: string; version: number; comment: string | null; canEdit: boolean }) {
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(comment ?? "");
  const edit = useMutation({
    mutationFn: (next: string) => api.assets.update(slug, token, { version_number: version, comment: next }),
    onSuccess: async () => {
      setEditing(false);
      await qc.invalidateQueries({ queryKey: keys.asset(slug, token) });
    },
  });
  if (!editing) {
    return (
      <div className="flex flex-wrap items-baseline gap-2">
        <p className={`text-sm ${comment ? "text-neutral-900" : "italic text-neutral-500"}`} data-testid={`comment-v${version}`}>
          {comment ?? "No comment"}
        </p>
        {canEdit ? (
          <button
            type="button"
            className="text-xs text-indigo-700 underline"
            onClick={() => {
              setDraft(comment ?? "");
              edit.reset();
              setEditing(true);
            }}
            aria-label={`Edit comment of version ${version}`}
          >
            Edit comment
          </button>
        ) : null}
      </div>
    );
  }
  return (
    <form
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        edit.mutate(draft);
      }}
    >
      <TextArea label={`Comment on version ${version}`} rows={2} value={draft} onChange={(e) => setDraft(e.target.value)} autoFocus maxLength={2000} />
      {edit.isError ? (
        <p role="alert" className="text-sm text-red-700">
          {describeError(edit.error)}
        </p>
      ) : null}
      <div className="flex gap-2">
        <Button type="submit" size="sm" variant="primary" disabled={edit.isPending}>
          Save comment
        </Button>
        <Button size="sm" onClick={() => edit.mutate("")} disabled={edit.isPending || !comment}>
          Clear comment
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setEditing(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
