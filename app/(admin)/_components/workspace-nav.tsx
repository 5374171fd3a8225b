"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import type { Operation } from "@/lib/auth/roles";
import { PLAN_LABEL } from "@/lib/client/format";
import { workspaceQuery, workspacesQuery } from "@/lib/client/queries";
import { useWorkspaceRole } from "@/lib/client/workspace-role";

/** Each section with the operation its page needs (lib/auth/roles.ts): sections the role lacks are not shown. */
const TABS: { href: string; label: string; needs: Operation }[] = [
  { href: "boards", label: "Boards", needs: "read" },
  { href: "search", label: "Search", needs: "read" },
  { href: "tokens", label: "API tokens", needs: "manage" },
  { href: "triggers", label: "Webhooks", needs: "manage" },
  { href: "members", label: "Members", needs: "manage" },
  { href: "settings", label: "Settings", needs: "manage" },
];

/** Workspace switcher (the person's workspaces only) and the sections their role opens. Switching keeps you on the same section. */
export function WorkspaceNav({ slug }: { slug: string }) {
  const pathname = usePathname();
  const { can } = useWorkspaceRole();
  const tabs = TABS.filter((t) => can(t.needs));
  const router = useRouter();
  const { data: all } = useQuery(workspacesQuery());
  const { data: current } = useQuery(workspaceQuery(slug));
  const section = pathname.split("/")[3] ?? "boards";
  const ws = current?.data;
  return (
    <div className="mb-6 flex flex-wrap items-end gap-x-6 gap-y-3 border-b border-neutral-200 pb-3">
      <div className="flex items-center gap-2">
        <label htmlFor="workspace-switcher" className="text-sm text-neutral-600">
          Workspace
        </label>
        <select
          id="workspace-switcher"
          value={slug}
          onChange={(e) => router.push(`/w/${e.target.value}/${["boards", "search"].includes(section) ? section : "boards"}`)}
          className="rounded-md border border-neutral-300 bg-white px-2 py-1.5 text-sm font-medium focus:outline-2 focus:outline-indigo-300"
        >
          {(all?.data ?? []).map((w) => (
            <option key={w.slug} value={w.slug}>
              {w.name === w.slug ? w.slug : `${w.name} (${w.slug})`}
            </option>
          ))}
        </select>
        {ws ? (
          <span className="flex gap-1">
            <Badge tone="violet">{ws.trial_of ? `${PLAN_LABEL[ws.trial_of]} trial` : PLAN_LABEL[ws.plan]}</Badge>
            <Badge>{ws.storage_kind}</Badge>
          </span>
        ) : null}
      </div>
      <nav aria-label="Workspace sections" className="flex flex-wrap gap-1 text-sm">
        {tabs.map((t) => {
          const active = section === t.href || (t.href === "boards" && section === "assets");
          return (
            <Link
              key={t.href}
              href={`/w/${slug}/${t.href}`}
              aria-current={active ? "page" : undefined}
              className={`rounded-md px-3 py-1.5 ${active ? "bg-indigo-50 font-medium text-indigo-800" : "text-neutral-700 hover:bg-neutral-100"}`}
            >
              {t.label}
            </Link>
          );
        })}
      </nav>
    </div>
  );
}
