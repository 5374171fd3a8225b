import { json } from "@/lib/http/envelope";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { resendDelivery } from "@/lib/webhooks";

// POST /v1/trigger/:id/deliveries/:delivery_id/resend — 202; the same body and webhook-id, a fresh retry schedule (beyond the interface)
const resend = withApi<null>({ scope: "write", webhooks: true, workspace: false }, async ({ params, deps, principal }) => {
  return json(await resendDelivery(deps, principal, { triggerId: params.id, deliveryId: params.delivery_id }), 202);
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: resend });
