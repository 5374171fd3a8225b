import { TokensAdmin } from "../../../_components/tokens-admin";
import { requireSession } from "../../../_lib/session";

export const metadata = { title: "API tokens" };

export default async function TokensPage({ params }: { params: Promise<{ slug: string }> }) {
  await requireSession();
  return <TokensAdmin slug={(await params).slug} />;
}
