import { WorkspaceSettings } from "../../../_components/workspace-settings";
import { requireWorkspaceRole } from "../../../_lib/session";

export const metadata = { title: "Workspace settings" };

export default async function SettingsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const principal = await requireWorkspaceRole(slug, "manage");
  return <WorkspaceSettings slug={slug} canChangePlan={principal.owner} />;
}
