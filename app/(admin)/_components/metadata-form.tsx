"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { TextArea, TextField } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { fieldsToText, parseFields } from "@/lib/client/fields";
import { useHydrated } from "@/lib/client/hydrated";
import { keys } from "@/lib/client/queries";
import type { Asset } from "@/lib/client/types";
import { useWorkspaceRole } from "@/lib/client/workspace-role";

/**
 * Title, description, text, tags and fields. A plain save changes the head in place; "keep a
 * version" first stores the current state as a version (a checkpoint) with an optional comment.
 */
export function MetadataForm({ slug, asset, versioning, onSaved }: { slug: string; asset: Asset; versioning: boolean; onSaved: (notice: string) => void }) {
  const qc = useQueryClient();
  const canWrite = useWorkspaceRole().can("write");
  const hydrated = useHydrated();
  const [title, setTitle] = useState(asset.title);
  const [description, setDescription] = useState(asset.description ?? "");
  const [text, setText] = useState(asset.text ?? "");
  const [tags, setTags] = useState(asset.tags.join(", "));
  const [fields, setFields] = useState(fieldsToText(asset.fields));
  const [checkpoint, setCheckpoint] = useState(false);
  const [comment, setComment] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => ({ before: asset.head_version_number, res: await api.assets.update(slug, asset.token, body) }),
    onSuccess: async ({ res, before }, body) => {
      // The form is remounted when the head moves, so the notice is shown by the page around it.
      onSaved(
        res.head_version_number > before
          ? `Saved. The previous state is kept as version ${before}.`
          : body.create_version
            ? "Saved. Nothing changed and no comment was given, so no version was kept."
            : "Saved.",
      );
      qc.setQueryData(keys.asset(slug, asset.token), { data: res.data });
      await qc.invalidateQueries({ queryKey: keys.asset(slug, asset.token) });
      await qc.invalidateQueries({ queryKey: keys.assetLists(slug) });
      setComment("");
    },
  });
  return (
    <form
      aria-label="Asset details"
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = parseFields(fields);
        if (typeof parsed === "string") return setProblem(parsed);
        setProblem(null);
        const body: Record<string, unknown> = {
          title: title.trim(),
          description,
          text,
          tags: tags.split(",").map((t) => t.trim()).filter(Boolean),
          fields: parsed,
        };
        if (checkpoint) {
          body.create_version = true;
          if (comment.trim()) body.comment = comment.trim();
        }
        save.mutate(body);
      }}
    >
      {/* A viewer sees the details read-only: every field disabled and no save. Disabled until
          hydrated too: the page arrives with these fields filled, and typing before React has
          attached its handlers would be lost (lib/client/hydrated.ts). */}
      <fieldset disabled={!canWrite || !hydrated} className="space-y-3">
      <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} required />
      <TextArea label="Description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
      <TextArea label="Text" rows={3} value={text} onChange={(e) => setText(e.target.value)} hint="Searchable text, such as a transcript or alt text." />
      <TextField label="Tags" value={tags} onChange={(e) => setTags(e.target.value)} hint="Separated by commas." />
      <TextArea label="Custom fields" rows={3} value={fields} onChange={(e) => setFields(e.target.value)} hint="One “name: value” per line." className="font-mono" />
      </fieldset>
      {versioning && canWrite ? (
        <div className="space-y-2 rounded-md border border-neutral-200 p-3">
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={checkpoint} onChange={(e) => setCheckpoint(e.target.checked)} className="h-4 w-4" />
            Keep the current state as a version before saving
          </label>
          {checkpoint ? <TextField label="Version comment (optional)" value={comment} onChange={(e) => setComment(e.target.value)} /> : null}
        </div>
      ) : null}
      {problem ? <Alert>{problem}</Alert> : null}
      {save.isError ? <Alert>{describeError(save.error)}</Alert> : null}
      {canWrite ? (
        <Button type="submit" variant="primary" disabled={save.isPending || !hydrated}>
          {save.isPending ? "Saving…" : "Save details"}
        </Button>
      ) : null}
    </form>
  );
}
