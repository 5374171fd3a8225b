import { TokensAdmin } from "../../../_components/tokens-admin";
import { requireWorkspaceRole } from "../../../_lib/session";

export const metadata = { title: "API tokens" };

export default async function TokensPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  await requireWorkspaceRole(slug, "manage");
  return <TokensAdmin slug={slug} />;
}
