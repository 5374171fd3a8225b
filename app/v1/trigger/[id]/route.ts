import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { deleteTrigger } from "@/lib/webhooks";

// DELETE /v1/trigger/:id — 204; nothing more is delivered for it, retries already scheduled included
const remove = withApi<null>({ scope: "write", webhooks: true, workspace: false }, async ({ params, deps, principal }) => {
  await deleteTrigger(deps, principal, params.id);
  return new Response(null, { status: 204 });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ DELETE: remove });
