import { TriggersAdmin } from "../../../_components/triggers-admin";
import { requireSession } from "../../../_lib/session";

export const metadata = { title: "Webhooks" };

export default async function TriggersPage({ params }: { params: Promise<{ slug: string }> }) {
  await requireSession();
  return <TriggersAdmin slug={(await params).slug} />;
}
