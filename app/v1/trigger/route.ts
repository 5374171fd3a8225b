import { json } from "@/lib/http/envelope";
import { parseJson, parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { createTrigger, listTriggers } from "@/lib/webhooks";
import { CreateTriggerBody, ListTriggersQuery } from "./schema";

// Trigger routes have no slug in the path: the workspace comes from the body or the token (lib/webhooks).

// POST /v1/trigger — register a webhook on a board; 201 with the bare trigger, the only time `secret` is shown
const create = withApi<null>({ scope: "write", webhooks: true, workspace: false }, async ({ req, deps, principal }) => {
  const body = await parseJson(req, CreateTriggerBody);
  const created = await createTrigger(deps, principal, {
    hook: body.hook,
    hookUrl: body.hook_url,
    organizationSlug: body.organization_slug,
    collectionToken: body.collection_token,
  });
  return json(created, 201);
});

// GET /v1/trigger — the caller's triggers, bare {"data": [...]} (beyond the interface)
const list = withApi<null>({ scope: "read", webhooks: true, workspace: false }, async ({ req, deps, principal }) => {
  const query = parseQuery(req, ListTriggersQuery);
  return json(await listTriggers(deps, principal, { organizationSlug: query.organization_slug, collectionToken: query.collection_token }));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list, POST: create });
