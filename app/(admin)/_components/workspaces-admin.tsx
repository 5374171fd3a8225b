"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { SelectField, TextField } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { PLAN_LABEL } from "@/lib/client/format";
import { useHydrated } from "@/lib/client/hydrated";
import { keys, workspacesQuery } from "@/lib/client/queries";
import { reloadAfterWrite } from "@/lib/client/reload-after-write";
import type { Plan, StorageKind } from "@/lib/client/types";

/** The workspaces the person may open and, for owners, a form to create one (what `npm run easel -- workspace create` does). */
export function WorkspacesAdmin({ canCreate }: { canCreate: boolean }) {
  const qc = useQueryClient();
  const router = useRouter();
  const list = useQuery(workspacesQuery());
  const hydrated = useHydrated();
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const [plan, setPlan] = useState<Plan>("free");
  const [storage, setStorage] = useState<StorageKind>("s3");
  const create = useMutation({
    mutationFn: () => api.admin.createWorkspace({ slug: slug.trim(), name: name.trim() || undefined, plan, storage_kind: storage }),
    onSuccess: async ({ data }) => {
      await reloadAfterWrite(qc, keys.workspaces());
      router.push(`/w/${data.slug}/boards`);
    },
  });
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <section className="space-y-3" aria-labelledby="ws-heading">
        <h1 id="ws-heading" className="text-2xl font-semibold">
          Workspaces
        </h1>
        {list.isError ? <Alert>{describeError(list.error)}</Alert> : null}
        <ul className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 bg-white">
          {list.data?.data.map((w) => (
            <li key={w.slug} className="flex flex-wrap items-center gap-2 px-4 py-3">
              <Link href={`/w/${w.slug}/boards`} className="font-medium text-indigo-700 hover:underline">
                {w.name}
              </Link>
              <span className="font-mono text-xs text-neutral-500">{w.slug}</span>
              <span className="ml-auto flex gap-1">
                <Badge tone="violet">{w.trial_of ? `${PLAN_LABEL[w.trial_of]} trial` : PLAN_LABEL[w.plan]}</Badge>
                <Badge>{w.storage_kind}</Badge>
              </span>
            </li>
          ))}
          {list.data && list.data.data.length === 0 ? <li className="px-4 py-3 text-sm text-neutral-500">No workspaces yet.</li> : null}
        </ul>
      </section>
      {canCreate ? (
      <form
        aria-label="Create a workspace"
        className="space-y-3 self-start rounded-lg border border-neutral-200 bg-white p-4"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <h2 className="font-semibold">New workspace</h2>
        {/* Server-rendered: disabled until hydrated, so nothing typed before is lost (lib/client/hydrated.ts). */}
        <fieldset disabled={!hydrated} className="space-y-3">
        <TextField label="Slug" value={slug} onChange={(e) => setSlug(e.target.value)} required pattern="[a-z0-9\-]{2,64}" hint="2–64 lowercase letters, digits and “-”; used in API paths." />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} />
        <SelectField label="Plan" value={plan} onChange={(e) => setPlan(e.target.value as Plan)}>
          {Object.entries(PLAN_LABEL).map(([p, label]) => (
            <option key={p} value={p}>
              {label}
            </option>
          ))}
        </SelectField>
        <SelectField label="Storage" value={storage} onChange={(e) => setStorage(e.target.value as StorageKind)} hint="Cannot be changed later.">
          <option value="s3">S3</option>
          <option value="gcs">GCS</option>
        </SelectField>
        </fieldset>
        {create.isError ? <Alert>{describeError(create.error)}</Alert> : null}
        <Button type="submit" variant="primary" disabled={!hydrated || create.isPending || !slug.trim()}>
          Create workspace
        </Button>
      </form>
      ) : null}
    </div>
  );
}
