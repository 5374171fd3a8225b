"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { SelectField } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { PLAN_LABEL, revertWindowLabel } from "@/lib/client/format";
import { keys, workspaceQuery } from "@/lib/client/queries";
import type { Plan, Workspace } from "@/lib/client/types";

const PLANS: Plan[] = ["free", "pro", "creative", "team", "business", "enterprise"];

/** `canChangePlan`: owners only; the server refuses a plan or trial change from anyone else. */
function Form({ ws, canChangePlan }: { ws: Workspace; canChangePlan: boolean }) {
  const qc = useQueryClient();
  const [plan, setPlan] = useState<Plan>(ws.plan);
  const [trialOf, setTrialOf] = useState<Plan | "">(ws.trial_of ?? "");
  const [streaming, setStreaming] = useState(ws.streaming_enabled);
  const save = useMutation({
    mutationFn: () => api.admin.updateWorkspace(ws.slug, canChangePlan ? { plan, trial_of: trialOf || null, streaming_enabled: streaming } : { streaming_enabled: streaming }),
    onSuccess: async ({ data }) => {
      qc.setQueryData(keys.workspace(ws.slug), { data });
      await qc.invalidateQueries({ queryKey: keys.workspaces() });
    },
  });
  return (
    <form
      aria-label="Workspace plan and settings"
      className="max-w-lg space-y-4 rounded-lg border border-neutral-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <SelectField label="Plan" value={plan} onChange={(e) => setPlan(e.target.value as Plan)} disabled={!canChangePlan} hint={canChangePlan ? undefined : "Only an owner changes the plan or trial."}>
        {PLANS.map((p) => (
          <option key={p} value={p}>
            {PLAN_LABEL[p]}
          </option>
        ))}
      </SelectField>
      <SelectField label="Trial of" value={trialOf} onChange={(e) => setTrialOf(e.target.value as Plan | "")} disabled={!canChangePlan} hint="A trial gets every capability of the plan it trials.">
        <option value="">No trial</option>
        {PLANS.map((p) => (
          <option key={p} value={p}>
            {PLAN_LABEL[p]}
          </option>
        ))}
      </SelectField>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={streaming} onChange={(e) => setStreaming(e.target.checked)} className="h-4 w-4" />
        Video streaming (HLS encodes)
      </label>
      {save.isError ? <Alert>{describeError(save.error)}</Alert> : null}
      {save.isSuccess ? <Alert tone="success">Saved.</Alert> : null}
      <Button type="submit" variant="primary" disabled={save.isPending}>
        Save settings
      </Button>
    </form>
  );
}

/** Plan, trial and streaming of a workspace, and what they allow. Storage kind is fixed at creation. */
export function WorkspaceSettings({ slug, canChangePlan }: { slug: string; canChangePlan: boolean }) {
  const { data, error } = useQuery(workspaceQuery(slug));
  if (error) return <Alert>{describeError(error)}</Alert>;
  if (!data) return null;
  const ws = data.data;
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Settings of {ws.name}</h1>
      <dl className="grid max-w-lg grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
        <dt className="text-neutral-500">Slug</dt>
        <dd className="font-mono">{ws.slug}</dd>
        <dt className="text-neutral-500">Storage</dt>
        <dd>{ws.storage_kind === "s3" ? "S3 (single or multipart uploads)" : "GCS (resumable uploads)"}</dd>
        <dt className="text-neutral-500">Versions</dt>
        <dd>{ws.versioning ? "new versions, reverts and comment edits allowed" : "read-only history (no version writes)"}</dd>
        <dt className="text-neutral-500">Revert window</dt>
        <dd>{ws.versioning ? revertWindowLabel(ws.revert_window_days) : "—"}</dd>
        <dt className="text-neutral-500">Video encodes</dt>
        <dd>{!ws.streaming_enabled ? "off" : ws.encodes_on_upload ? "on upload" : "when a video is first read"}</dd>
      </dl>
      <Form key={ws.slug} ws={ws} canChangePlan={canChangePlan} />
    </div>
  );
}
