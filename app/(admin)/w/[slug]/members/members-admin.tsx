"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Dialog } from "@/app/_components/ui/dialog";
import { SelectField, TextField } from "@/app/_components/ui/field";
import { describeError } from "@/lib/client/errors";
import { formatDate } from "@/lib/client/format";
import { describeMade, invitationsQuery, madeAnything, memberKeys, membersApi, membersQuery, type CreatedInvitation, type Member, type MemberRole } from "@/lib/client/members";

const ROLES: { value: MemberRole; label: string; hint: string }[] = [
  { value: "viewer", label: "Viewer", hint: "Browse boards, search, open assets, play video, see versions." },
  { value: "editor", label: "Editor", hint: "Viewer, plus upload, edit, versions, revert, comments and boards." },
  { value: "admin", label: "Admin", hint: "Editor, plus API tokens, webhooks, settings and members." },
];

function InviteForm({ slug, onInvited }: { slug: string; onInvited: (i: CreatedInvitation) => void }) {
  const qc = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("viewer");
  const invite = useMutation({
    mutationFn: () => membersApi.invite(slug, { email: email.trim(), role }),
    onSuccess: async ({ data }) => {
      setEmail("");
      onInvited(data);
      await qc.invalidateQueries({ queryKey: memberKeys.all(slug) });
    },
  });
  return (
    <form
      aria-label="Invite someone"
      className="space-y-3 rounded-lg border border-neutral-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        invite.mutate();
      }}
    >
      <h2 className="font-semibold">Invite someone</h2>
      <TextField label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required maxLength={320} />
      <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as MemberRole)} hint={ROLES.find((r) => r.value === role)?.hint}>
        {ROLES.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </SelectField>
      {invite.isError ? <Alert>{describeError(invite.error)}</Alert> : null}
      <Button type="submit" variant="primary" disabled={invite.isPending || !email.trim()}>
        Create invitation link
      </Button>
    </form>
  );
}

/** The link of a new invitation, shown once: Easel sends no mail, the admin passes it on. */
function InvitationLink({ invitation, onDone }: { invitation: CreatedInvitation; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="space-y-2 rounded-lg border border-green-300 bg-green-50 p-4 text-sm">
      <p>
        Send this link to <strong>{invitation.email}</strong> ({invitation.role}). It works once, until {formatDate(invitation.expires_at)}, and is not shown again.
      </p>
      <input readOnly aria-label="Invitation link" value={invitation.url} onFocus={(e) => e.target.select()} className="w-full rounded border border-neutral-300 bg-white px-2 py-1 font-mono text-xs" />
      <div className="flex gap-2">
        <Button
          size="sm"
          onClick={() =>
            void navigator.clipboard.writeText(invitation.url).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy link"}
        </Button>
        <Button size="sm" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

/** A removal, or a role below admin for someone who made tokens or invitations: asked before it is done. */
type Pending = { member: Member; role: MemberRole | null };

/** Says what the change will revoke, then does it. */
function ConfirmChange({ pending, busy, onConfirm, onCancel }: { pending: Pending | null; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const m = pending?.member;
  const removing = pending?.role === null;
  const title = !m ? "" : removing ? `Remove ${m.email}?` : `Make ${m.email} ${pending?.role === "editor" ? "an editor" : "a viewer"}?`;
  return (
    <Dialog open={pending !== null} onClose={onCancel} title={title}>
      {m ? (
        <div className="space-y-2 text-sm text-neutral-700" data-testid="confirm-revocations">
          {removing ? <p>Their sessions lose this workspace at once.</p> : null}
          <p>
            This revokes the <strong>{describeMade(m.made)}</strong> they made in this workspace: programs using those tokens get 401, and those invitation links stop working.
          </p>
          {m.made.webhook_triggers > 0 ? <p>Their webhook triggers stop delivering until another admin renews them (the renewing admin takes them over).</p> : null}
        </div>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant="danger" onClick={onConfirm} disabled={busy}>
          {removing ? "Remove member" : "Change role"}
        </Button>
      </div>
    </Dialog>
  );
}

/** A workspace's people: invite by link, pending invitations (revoke), members (change role, remove). */
export function MembersAdmin({ slug }: { slug: string }) {
  const qc = useQueryClient();
  const members = useQuery(membersQuery(slug));
  const invitations = useQuery(invitationsQuery(slug));
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: memberKeys.all(slug) });
  const changeRole = useMutation({
    mutationFn: (v: { member: Member; role: MemberRole }) => membersApi.changeRole(slug, v.member.user_id, v.role),
    onSuccess: ({ data }, v) => setOutcome(madeAnything(data.revoked) ? `${v.member.email} is now ${data.role === "admin" ? "an" : "a"} ${data.role}; revoked ${describeMade(data.revoked)}.` : null),
    onSettled: () => {
      setPending(null);
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (m: Member) => membersApi.remove(slug, m.user_id),
    onSuccess: ({ data }, m) => setOutcome(`Removed ${m.email}; revoked ${describeMade(data.revoked)}.`),
    onSettled: () => {
      setPending(null);
      return refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (id: number) => membersApi.revoke(slug, id), onSettled: refresh });
  const failure = changeRole.error ?? remove.error ?? revoke.error;
  const askRole = (m: Member, role: MemberRole) => {
    setOutcome(null);
    if (role !== "admin" && madeAnything(m.made)) setPending({ member: m, role });
    else changeRole.mutate({ member: m, role });
  };
  const confirm = () => {
    if (!pending) return;
    if (pending.role === null) remove.mutate(pending.member);
    else changeRole.mutate({ member: pending.member, role: pending.role });
  };
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div className="space-y-6">
        <section aria-labelledby="members-heading" className="space-y-3">
          <h1 id="members-heading" className="text-2xl font-semibold">
            Members
          </h1>
          <p className="text-sm text-neutral-600">
            Owners (made with <code className="rounded bg-neutral-100 px-1">npm run easel -- admin create</code>) act in every workspace and are not listed. A change applies on the member&apos;s next request.
            Removing a member, or giving an admin a lower role, revokes the API tokens and pending invitations they made here.
          </p>
          {outcome ? (
            <Alert tone="success">
              <span data-testid="revocation-outcome">{outcome}</span>
            </Alert>
          ) : null}
          {failure ? <Alert>{describeError(failure)}</Alert> : null}
          {members.isError ? <Alert>{describeError(members.error)}</Alert> : null}
          <ul className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 bg-white">
            {members.data?.data.map((m) => (
              <li key={m.user_id} className="flex flex-wrap items-center gap-3 px-4 py-3" data-testid={`member-${m.email}`}>
                <span className="font-medium">{m.email}</span>
                <span className="text-xs text-neutral-500">since {formatDate(m.created_at)}</span>
                {madeAnything(m.made) ? <span className="text-xs text-neutral-500">made {describeMade(m.made)}</span> : null}
                <label className="ml-auto flex items-center gap-2 text-sm">
                  <span className="sr-only">Role of {m.email}</span>
                  <select
                    value={m.role}
                    onChange={(e) => askRole(m, e.target.value as MemberRole)}
                    disabled={changeRole.isPending}
                    className="rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm"
                  >
                    {ROLES.map((r) => (
                      <option key={r.value} value={r.value}>
                        {r.label}
                      </option>
                    ))}
                  </select>
                </label>
                <Button
                  size="sm"
                  variant="danger"
                  onClick={() => {
                    setOutcome(null);
                    setPending({ member: m, role: null });
                  }}
                  disabled={remove.isPending}
                  aria-label={`Remove ${m.email}`}
                >
                  Remove
                </Button>
              </li>
            ))}
            {members.data && members.data.data.length === 0 ? <li className="px-4 py-3 text-sm text-neutral-500">No members yet: invite someone.</li> : null}
          </ul>
        </section>
        <section aria-labelledby="invitations-heading" className="space-y-3">
          <h2 id="invitations-heading" className="text-lg font-semibold">
            Pending invitations
          </h2>
          <ul className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 bg-white">
            {invitations.data?.data.map((i) => (
              <li key={i.id} className="flex flex-wrap items-center gap-3 px-4 py-3" data-testid={`invitation-${i.email}`}>
                <span className="font-medium">{i.email}</span>
                <Badge>{i.role}</Badge>
                <span className="text-xs text-neutral-500">expires {formatDate(i.expires_at)}</span>
                <span className="text-xs text-neutral-500" data-testid="created-by">
                  by {i.created_by ? i.created_by.email : "unknown"}
                </span>
                <Button size="sm" className="ml-auto" onClick={() => revoke.mutate(i.id)} disabled={revoke.isPending} aria-label={`Revoke the invitation of ${i.email}`}>
                  Revoke
                </Button>
              </li>
            ))}
            {invitations.data && invitations.data.data.length === 0 ? <li className="px-4 py-3 text-sm text-neutral-500">None.</li> : null}
          </ul>
        </section>
      </div>
      <div className="space-y-4 self-start">
        {created ? <InvitationLink invitation={created} onDone={() => setCreated(null)} /> : null}
        <InviteForm slug={slug} onInvited={setCreated} />
      </div>
      <ConfirmChange pending={pending} busy={remove.isPending || changeRole.isPending} onConfirm={confirm} onCancel={() => setPending(null)} />
    </div>
  );
}
