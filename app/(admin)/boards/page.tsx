import Link from "next/link";
import { redirect } from "next/navigation";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { getDeps } from "@/lib/deps";
import { listWorkspaces } from "@/lib/workspaces/list-workspaces";

export const metadata = { title: "Boards" };

// The board browser opens on the first workspace; with none yet, it says how to make one.
export default async function BoardsEntry() {
  const workspaces = await listWorkspaces((await getDeps()).db);
  if (workspaces.length > 0) redirect(`/w/${workspaces[0].slug}/boards`);
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
