import { json } from "@/lib/http/envelope";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { renewTrigger } from "@/lib/webhooks";

// POST /v1/trigger/:id/renew — a new expiration_date 90 days from now; bare trigger (beyond the interface)
const renew = withApi<null>({ scope: "write", webhooks: true, workspace: false }, async ({ params, deps, principal }) => {
  return json(await renewTrigger(deps, principal, params.id));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: renew });
