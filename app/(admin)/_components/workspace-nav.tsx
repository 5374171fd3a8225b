"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import { PLAN_LABEL } from "@/lib/client/format";
import { workspaceQuery, workspacesQuery } from "@/lib/client/queries";

const TABS = [
  { href: "boards", label: "Boards" },
  { href: "search", label: "Search" },
  { href: "tokens", label: "API tokens" },
  { href: "triggers", label: "Webhooks" },
  { href: "settings", label: "Settings" },
];

/** Workspace switcher and the workspace's sections. Switching keeps you on the same section. */
export function WorkspaceNav({ slug }: { slug: string }) {
  const pathname = usePathname();
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
          onChange={(e) => router.push(`/w/${e.target.value}/${["boards", "search", "tokens", "triggers", "settings"].includes(section) ? section : "boards"}`)}
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
        {TABS.map((t) => {
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
