import { HydrationBoundary } from "@tanstack/react-query";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { WorkspaceRoleProvider } from "@/lib/client/workspace-role";
import { SlashToSearch } from "../../_components/keyboard-shortcuts";
import { WorkspaceNav } from "../../_components/workspace-nav";
import { dehydrated, prefetchWorkspaces, workspaceContext } from "../../_lib/prefetch";
import { requireSession } from "../../_lib/session";

/** Every page of a workspace: not found unless it is the signed-in person's; their role there is handed to the client components. */
export default async function WorkspaceLayout({ children, params }: { children: ReactNode; params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const ctx = await workspaceContext(slug, await requireSession());
  if (!ctx) notFound();
  await prefetchWorkspaces(ctx);
  return (
    <HydrationBoundary state={dehydrated(ctx.qc)}>
      <WorkspaceRoleProvider role={ctx.role}>
        <WorkspaceNav slug={slug} />
        <SlashToSearch slug={slug} />
        {children}
      </WorkspaceRoleProvider>
    </HydrationBoundary>
  );
}
