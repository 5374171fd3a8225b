"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { inputClass } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { keys } from "@/lib/client/queries";
import { reloadAfterWrite } from "@/lib/client/reload-after-write";
import { useWorkspaceRole } from "@/lib/client/workspace-role";

/** Creates a board (a sub-board with `parentToken`) and opens it. */
export function CreateBoardForm({ slug, parentToken, label }: { slug: string; parentToken?: string; label: string }) {
  const [title, setTitle] = useState("");
  const id = useId();
  const qc = useQueryClient();
  const router = useRouter();
  const canWrite = useWorkspaceRole().can("write");
  const create = useMutation({
    mutationFn: () => api.boards.create(slug, { title: title.trim(), parent_token: parentToken ?? null }),
    onSuccess: async ({ data }) => {
      setTitle("");
      await reloadAfterWrite(qc, keys.boards(slug));
      router.push(`/w/${slug}/boards/${data.token}`);
    },
  });
  // Boards are writes: a viewer gets no form (the server refuses the write anyway).
  if (!canWrite) return null;
  return (
    <form
      className="space-y-1"
      onSubmit={(e) => {
        e.preventDefault();
        if (title.trim()) create.mutate();
      }}
    >
      <label htmlFor={id} className="block text-xs font-medium text-neutral-600">
        {label}
      </label>
      <div className="flex gap-1.5">
        <input id={id} value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Title" maxLength={500} className={`${inputClass} py-1.5`} />
        <Button type="submit" size="sm" variant="primary" disabled={!title.trim() || create.isPending}>
          Create
        </Button>
      </div>
      {create.isError ? (
        <p role="alert" className="text-xs text-red-700">
          {describeError(create.error)}
        </p>
      ) : null}
    </form>
  );
}
