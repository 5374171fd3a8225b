"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Spinner } from "@/app/_components/ui/empty-state";
import { SelectField, TextField } from "@/app/_components/ui/field";
import { LocalTime } from "@/app/_components/ui/local-time";
import { api } from "@/lib/client/api";
import { describeError, isCode } from "@/lib/client/errors";
import { formatDate } from "@/lib/client/format";
import { deliveriesQuery, keys, rootBoardsQuery, triggersQuery } from "@/lib/client/queries";
import { reloadAfterWrite } from "@/lib/client/reload-after-write";
import type { HookKind, Trigger } from "@/lib/client/types";

const HOOKS: HookKind[] = ["asset_added", "asset_updated", "asset_deleted"];

function Deliveries({ slug, trigger }: { slug: string; trigger: Trigger }) {
  const qc = useQueryClient();
  const log = useQuery(deliveriesQuery(slug, trigger.id));
  const resend = useMutation({
    mutationFn: (deliveryId: number) => api.triggers.resend(trigger.id, deliveryId),
    onSettled: () => qc.invalidateQueries({ queryKey: deliveriesQuery(slug, trigger.id).queryKey }),
  });
  if (log.isPending) return <Spinner label="Loading deliveries" />;
  if (log.isError) return <Alert>{describeError(log.error)}</Alert>;
  if (log.data.data.length === 0) return <p className="text-sm text-neutral-500">No deliveries yet.</p>;
  return (
    <div className="space-y-2">
      {resend.isError ? <Alert>{describeError(resend.error)}</Alert> : null}
      <table className="w-full text-left text-xs">
        <thead className="text-neutral-600">
          <tr>
            <th scope="col" className="py-1 pr-2 font-medium">When</th>
            <th scope="col" className="py-1 pr-2 font-medium">Event</th>
            <th scope="col" className="py-1 pr-2 font-medium">Attempt</th>
            <th scope="col" className="py-1 pr-2 font-medium">Status</th>
            <th scope="col" className="py-1 pr-2 font-medium">Response</th>
            <th scope="col" className="py-1 pr-2 font-medium">Error</th>
            <th scope="col" className="py-1 font-medium"><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {log.data.data.map((d) => (
            <tr key={d.id} className="border-t border-neutral-100">
              <td className="py-1 pr-2"><LocalTime iso={d.created_at} /></td>
              <td className="py-1 pr-2">{d.event}</td>
              <td className="py-1 pr-2">{d.attempt}</td>
              <td className="py-1 pr-2">{d.status}</td>
              <td className="py-1 pr-2">{d.response_status ?? "—"}</td>
              <td className="max-w-48 truncate py-1 pr-2" title={d.error ?? undefined}>{d.error ?? ""}</td>
              <td className="py-1 text-right">
                <Button size="sm" onClick={() => resend.mutate(d.id)} disabled={resend.isPending}>
                  Resend
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TriggerRow({ slug, trigger }: { slug: string; trigger: Trigger }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const refresh = () => qc.invalidateQueries({ queryKey: keys.triggers(slug) });
  const remove = useMutation({ mutationFn: () => api.triggers.remove(trigger.id), onSuccess: refresh });
  const renew = useMutation({ mutationFn: () => api.triggers.renew(trigger.id), onSuccess: refresh });
  const [shownAt] = useState(() => Date.now());
  const status = trigger.status ?? (Date.parse(trigger.expiration_date) < shownAt ? "expired" : "active");
  return (
    <li className="space-y-2 rounded-lg border border-neutral-200 bg-white p-3">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone="blue">{trigger.hook}</Badge>
        <span className="min-w-0 flex-1 truncate font-mono text-sm" title={trigger.hook_url}>{trigger.hook_url}</span>
        <Badge tone={status === "active" ? "green" : "red"} title={`Expires ${formatDate(trigger.expiration_date)}`}>
          {status === "active" ? <>active until <LocalTime iso={trigger.expiration_date} /></> : status}
        </Badge>
      </div>
      <p className="text-xs text-neutral-500">Board {trigger.collection_token} and its sub-boards</p>
      {remove.isError || renew.isError ? <Alert>{describeError(remove.error ?? renew.error)}</Alert> : null}
      <div className="flex gap-2">
        <Button size="sm" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? "Hide deliveries" : "Delivery log"}
        </Button>
        <Button size="sm" onClick={() => renew.mutate()} disabled={renew.isPending}>
          Renew
        </Button>
        <Button size="sm" variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
          Delete
        </Button>
      </div>
      {open ? <Deliveries slug={slug} trigger={trigger} /> : null}
    </li>
  );
}

function CreateTrigger({ slug, onSecret }: { slug: string; onSecret: (s: string) => void }) {
  const qc = useQueryClient();
  const boards = useQuery(rootBoardsQuery(slug));
  const [hook, setHook] = useState<HookKind>("asset_added");
  const [url, setUrl] = useState("");
  const [board, setBoard] = useState("");
  const create = useMutation({
    mutationFn: () => api.triggers.create({ hook, hook_url: url.trim(), organization_slug: slug, collection_token: board }),
    onSuccess: async (t) => {
      setUrl("");
      if (t.secret) onSecret(t.secret);
      await reloadAfterWrite(qc, keys.triggers(slug));
    },
  });
  return (
    <form
      aria-label="Create a webhook trigger"
      className="space-y-3 self-start rounded-lg border border-neutral-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2 className="font-semibold">New trigger</h2>
      <SelectField label="Event" value={hook} onChange={(e) => setHook(e.target.value as HookKind)}>
        {HOOKS.map((h) => (
          <option key={h} value={h}>
            {h}
          </option>
        ))}
      </SelectField>
      <TextField label="Receiver URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://example.com/hooks/easel" />
      <SelectField label="Board" value={board} onChange={(e) => setBoard(e.target.value)} required hint="Events of its sub-boards are delivered too.">
        <option value="">Choose a board</option>
        {boards.data?.data.map((b) => (
          <option key={b.token} value={b.token}>
            {b.title}
          </option>
        ))}
      </SelectField>
      {create.isError ? <Alert>{describeError(create.error)}</Alert> : null}
      <Button type="submit" variant="primary" disabled={create.isPending || !board || !url.trim()}>
        Create trigger
      </Button>
    </form>
  );
}

/** Webhook triggers of the workspace over /v1/trigger: list, create, renew, delete, delivery log and resend. */
export function TriggersAdmin({ slug }: { slug: string }) {
  const list = useQuery(triggersQuery(slug));
  const [secret, setSecret] = useState<string | null>(null);
  if (list.isError && isCode(list.error, "route_not_found")) {
    return (
      <div className="space-y-3">
        <h1 className="text-2xl font-semibold">Webhooks</h1>
        <Alert tone="info">This server has no webhook trigger API yet (/v1/trigger answers route_not_found).</Alert>
      </div>
    );
  }
  const mine = list.data?.data.filter((t) => !t.organization_slug || t.organization_slug === slug) ?? [];
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <section aria-labelledby="hooks-heading" className="space-y-3">
        <h1 id="hooks-heading" className="text-2xl font-semibold">
          Webhooks
        </h1>
        {secret ? (
          <Alert tone="warning">
            Signing secret, shown only now: <code className="break-all font-mono">{secret}</code>
          </Alert>
        ) : null}
        {list.isPending ? (
          <Spinner label="Loading triggers" />
        ) : list.isError ? (
          <Alert>{describeError(list.error)}</Alert>
        ) : mine.length === 0 ? (
          <p className="text-sm text-neutral-500">No triggers yet.</p>
        ) : (
          <ul className="space-y-2">
            {mine.map((t) => (
              <TriggerRow key={t.id} slug={slug} trigger={t} />
            ))}
          </ul>
        )}
      </section>
      <CreateTrigger slug={slug} onSecret={setSecret} />
    </div>
  );
}
