"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Dialog } from "@/app/_components/ui/dialog";
import { Spinner } from "@/app/_components/ui/empty-state";
import { TextField } from "@/app/_components/ui/field";
import { api } from "@/lib/client/api";
import { describeError } from "@/lib/client/errors";
import { formatDate } from "@/lib/client/format";
import { keys, tokensQuery } from "@/lib/client/queries";
import { reloadAfterWrite } from "@/lib/client/reload-after-write";
import type { ApiToken, IssuedApiToken, Scope } from "@/lib/client/types";

function CreateToken({ slug, onIssued }: { slug: string; onIssued: (t: IssuedApiToken) => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const [webhooks, setWebhooks] = useState(false);
  const create = useMutation({
    mutationFn: () => api.admin.createToken(slug, { name: name.trim(), scopes, webhooks }),
    onSuccess: async ({ data }) => {
      setName("");
      onIssued(data);
      await reloadAfterWrite(qc, keys.tokens(slug));
    },
  });
  const toggle = (s: Scope, on: boolean) => setScopes((cur) => (on ? [...new Set([...cur, s])] : cur.filter((x) => x !== s)));
  return (
    <form
      aria-label="Create an API token"
      className="space-y-3 rounded-lg border border-neutral-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2 className="font-semibold">New API token</h2>
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} hint="What uses it, e.g. “website build”." />
      <fieldset className="space-y-1">
        <legend className="text-sm font-medium">Scopes</legend>
        {(["read", "write"] as const).map((s) => (
          <label key={s} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => toggle(s, e.target.checked)} className="h-4 w-4" />
            {s === "read" ? "read — list and read boards, assets and versions" : "write — upload, edit, revert, delete"}
          </label>
        ))}
      </fieldset>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={webhooks} onChange={(e) => setWebhooks(e.target.checked)} className="h-4 w-4" />
        May manage webhook triggers
      </label>
      {create.isError ? <Alert>{describeError(create.error)}</Alert> : null}
      <Button type="submit" variant="primary" disabled={create.isPending || !name.trim() || scopes.length === 0}>
        Create token
      </Button>
    </form>
  );
}

function Issued({ token, onDone }: { token: IssuedApiToken; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <Alert tone="warning">
      <div className="space-y-2">
        <p className="font-medium">Copy the token “{token.name}” now: it is shown only once.</p>
        <code data-testid="issued-token" className="block break-all rounded bg-white px-2 py-1 font-mono text-sm text-neutral-900">
          {token.token}
        </code>
        <div className="flex gap-2">
          <Button
            size="sm"
            onClick={() => {
              void navigator.clipboard?.writeText(token.token).then(() => setCopied(true));
            }}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
          <Button size="sm" variant="ghost" onClick={onDone}>
            I have stored it
          </Button>
        </div>
      </div>
    </Alert>
  );
}

/** The workspace's API tokens: create (shown once), list by prefix, revoke. */
export function TokensAdmin({ slug }: { slug: string }) {
  const qc = useQueryClient();
  const tokens = useQuery(tokensQuery(slug));
  const [issued, setIssued] = useState<IssuedApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const revoke = useMutation({
    mutationFn: (t: ApiToken) => api.admin.revokeToken(slug, t.id),
    onSuccess: async () => {
      setRevoking(null);
      await reloadAfterWrite(qc, keys.tokens(slug));
    },
  });
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <section aria-labelledby="tokens-heading" className="space-y-3">
        <h1 id="tokens-heading" className="text-2xl font-semibold">
          API tokens
        </h1>
        <p className="text-sm text-neutral-600">Tokens authenticate programs to the /v1 API of this workspace. Only their first characters are stored in clear. A token is revoked when the person who made it leaves the workspace or stops being one of its admins.</p>
        {issued ? <Issued token={issued} onDone={() => setIssued(null)} /> : null}
        {tokens.isPending ? (
          <Spinner label="Loading tokens" />
        ) : tokens.isError ? (
          <Alert>{describeError(tokens.error)}</Alert>
        ) : tokens.data.data.length === 0 ? (
          <p className="text-sm text-neutral-500">No tokens yet.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-neutral-600">
                <tr>
                  <th scope="col" className="py-2 pr-3 font-medium">Name</th>
                  <th scope="col" className="py-2 pr-3 font-medium">Token</th>
                  <th scope="col" className="py-2 pr-3 font-medium">Access</th>
                  <th scope="col" className="py-2 pr-3 font-medium">Created</th>
                  <th scope="col" className="py-2 pr-3 font-medium">By</th>
                  <th scope="col" className="py-2 font-medium"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.data.map((t) => (
                  <tr key={t.id} className="border-t border-neutral-200" data-testid={`token-${t.name}`}>
                    <td className="py-2 pr-3">{t.name}</td>
                    <td className="py-2 pr-3 font-mono text-xs">{t.prefix}…</td>
                    <td className="space-x-1 py-2 pr-3">
                      {t.scopes.map((s) => <Badge key={s}>{s}</Badge>)}
                      {t.webhooks ? <Badge tone="violet">webhooks</Badge> : null}
                    </td>
                    <td className="py-2 pr-3">{formatDate(t.created_at)}</td>
                    <td className="py-2 pr-3" data-testid="created-by">
                      {t.created_by ? t.created_by.email : <span className="text-neutral-500" title="Made with the CLI, or before Easel recorded who made tokens">unknown</span>}
                    </td>
                    <td className="py-2 text-right">
                      {t.revoked_at ? (
                        <Badge tone="red" title={`Revoked ${formatDate(t.revoked_at)}`}>revoked</Badge>
                      ) : (
                        <Button size="sm" variant="danger" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>
                          Revoke
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateToken slug={slug} onIssued={setIssued} />
      <Dialog open={revoking !== null} onClose={() => setRevoking(null)} title={`Revoke “${revoking?.name ?? ""}”?`}>
        <p className="text-sm text-neutral-700">Programs using it get 401 from now on. Board access tokens it already made keep working until they expire.</p>
        {revoke.isError ? <Alert>{describeError(revoke.error)}</Alert> : null}
        <div className="flex justify-end gap-2">
          <Button onClick={() => setRevoking(null)}>Cancel</Button>
          <Button variant="danger" onClick={() => revoking && revoke.mutate(revoking)} disabled={revoke.isPending}>
            Revoke token
          </Button>
        </div>
      </Dialog>
    </div>
  );
}
