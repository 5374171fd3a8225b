import Link from "next/link";
import { redirect } from "next/navigation";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { getDeps } from "@/lib/deps";
import { listWorkspacesFor } from "@/lib/members/visible-workspaces";
import { requireSession } from "../_lib/session";

export const metadata = { title: "Boards" };

// The board browser opens on the first workspace the person may open; with none, it says how to get one.
export default async function BoardsEntry() {
  const principal = await requireSession();
  const workspaces = await listWorkspacesFor((await getDeps()).db, principal);
  if (workspaces.length > 0) redirect(`/w/${workspaces[0].slug}/boards`);
  if (!principal.owner) {
    return (
      <main className="space-y-4">
        <h1 className="text-2xl font-semibold">Boards</h1>
        <EmptyState title="You are not a member of any workspace">Ask a workspace admin for an invitation.</EmptyState>
      </main>
    );
  }
  return (
    <main className="space-y-4">
      <h1 className="text-2xl font-semibold">Boards</h1>
      <EmptyState title="There are no workspaces yet">
        <p>
          <Link href="/workspaces" className="text-indigo-700 underline">
            Create a workspace
          </Link>{" "}
          or run <code className="rounded bg-neutral-100 px-1">npm run easel -- workspace create my-team</code>.
        </p>
      </EmptyState>
    </main>
  );
}
