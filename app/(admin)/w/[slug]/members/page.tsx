import { requireWorkspaceRole } from "../../../_lib/session";
import { MembersAdmin } from "./members-admin";

export const metadata = { title: "Members" };

export default async function MembersPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  await requireWorkspaceRole(slug, "manage");
  return <MembersAdmin slug={slug} />;
}
