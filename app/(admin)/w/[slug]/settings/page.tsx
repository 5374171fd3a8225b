import { WorkspaceSettings } from "../../../_components/workspace-settings";
import { requireSession } from "../../../_lib/session";

export const metadata = { title: "Workspace settings" };

export default async function SettingsPage({ params }: { params: Promise<{ slug: string }> }) {
  await requireSession();
  return <WorkspaceSettings slug={(await params).slug} />;
}
