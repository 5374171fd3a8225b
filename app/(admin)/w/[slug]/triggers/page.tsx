import { TriggersAdmin } from "../../../_components/triggers-admin";
import { requireWorkspaceRole } from "../../../_lib/session";

export const metadata = { title: "Webhooks" };

export default async function TriggersPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  await requireWorkspaceRole(slug, "manage");
  return <TriggersAdmin slug={slug} />;
}
