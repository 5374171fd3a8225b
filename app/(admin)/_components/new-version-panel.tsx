"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { TextField } from "@/app/_components/ui/field";
import { keys } from "@/lib/client/queries";
import type { Asset, StorageKind } from "@/lib/client/types";
import { Uploader } from "./uploader";

/** "Upload new version": the file replaces the head, and the current state is kept as a version with the comment. */
export function NewVersionPanel({ slug, asset, storageKind }: { slug: string; asset: Asset; storageKind: StorageKind }) {
  const qc = useQueryClient();
  const [comment, setComment] = useState("");
  const commentRef = useRef(comment);
  // Read when an upload finishes, after renders: kept current by an effect, not during render.
  useEffect(() => {
    commentRef.current = comment;
  }, [comment]);
  const [done, setDone] = useState<string | null>(null);
  return (
    <div className="space-y-3">
      <TextField label="Comment for the version being replaced (optional)" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} />
      <Uploader
        slug={slug}
        storageKind={storageKind}
        single
        height={220}
        targetKey={`version:${asset.token}`}
        target={{ kind: "version", assetToken: asset.token, comment: () => commentRef.current }}
        note="One file: it becomes the asset's new content."
        onAsset={(updated) => {
          setDone(`New version uploaded. The previous content is kept as version ${updated.head_version_number - 1}.`);
          setComment("");
          void qc.invalidateQueries({ queryKey: keys.asset(slug, asset.token) });
          void qc.invalidateQueries({ queryKey: keys.assetLists(slug) });
        }}
      />
      {done ? <Alert tone="success">{done}</Alert> : null}
    </div>
  );
}
