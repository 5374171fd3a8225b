import { json } from "@/lib/http/envelope";
import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { listDeliveries } from "@/lib/webhooks";
import { ListDeliveriesQuery } from "../../schema";

// GET /v1/trigger/:id/deliveries — the delivery log, one row per attempt, newest first (beyond the interface)
const list = withApi<null>({ scope: "read", webhooks: true, workspace: false }, async ({ req, params, deps, principal }) => {
  const query = parseQuery(req, ListDeliveriesQuery);
  return json(await listDeliveries(deps, principal, { triggerId: params.id, page: toPage(query), messageId: query.message_id }));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list });
