import { HydrationBoundary, dehydrate } from "@tanstack/react-query";
import { workspacesQuery } from "@/lib/client/queries";
import { makeQueryClient } from "@/lib/client/query-client";
import { getDeps } from "@/lib/deps";
import { listWorkspacesFor } from "@/lib/members/visible-workspaces";
import { WorkspacesAdmin } from "../_components/workspaces-admin";
import { requireSession } from "../_lib/session";

export const metadata = { title: "Workspaces" };

export default async function WorkspacesPage() {
  const principal = await requireSession();
  const qc = makeQueryClient();
  qc.setQueryData(workspacesQuery().queryKey, { data: await listWorkspacesFor((await getDeps()).db, principal) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <WorkspacesAdmin canCreate={principal.owner} />
    </HydrationBoundary>
  );
}
