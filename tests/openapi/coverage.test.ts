import { beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { OPERATIONS } from "../../lib/openapi/operations";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { allowedMethods, callerFor, v1Routes, type RouteFile } from "./routes";

let routes: RouteFile[];
beforeAll(async () => {
  routes = await v1Routes();
});

describe("every /v1 route is documented, and every documented operation has a route", () => {
  it("the methods each route file answers are exactly the documented operations", async () => {
    const served: string[] = [];
    for (const route of routes) {
      const methods = await allowedMethods(route);
      if (methods === null) continue;
      if (route.template === null) throw new Error(`${route.file} is a catch-all but answers ${methods.join(", ")}`);
      for (const m of methods) served.push(`${m} ${route.template}`);
    }
    const documented = OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect({ undocumented: served.filter((s) => !documented.includes(s)), withoutRoute: documented.filter((d) => !served.includes(d)) }).toEqual({
      undocumented: [],
      withoutRoute: [],
    });
    expect(served.length).toBe(OPERATIONS.length);
  });

  it("route files that answer no method are the catch-alls (404 route_not_found)", async () => {
    const catchAlls: string[] = [];
    for (const route of routes) if ((await allowedMethods(route)) === null) catchAlls.push(route.file);
    expect(catchAlls.length).toBeGreaterThan(0);
    for (const file of catchAlls) expect(file).toMatch(/\[\.\.\.rest\]\/route\.ts$|^app\/v1\/(\[slug\]\/)?route\.ts$/);
  });
});

// The document's security (scope, board access token, webhooks permission) is data in
// lib/openapi/operations.ts; these calls show the routes' wrapper enforces exactly that.
describe("the documented security is what each route enforces", () => {
  let ws: Workspace;
  let boardToken: string;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    const deps = await useTestDeps();
    ws = await newWorkspace(deps.db);
    const board = await newBoard(deps.db, ws);
    boardToken = await newBoardToken(deps.db, ws, board.token);
    tokens.readOnly = await newApiToken(deps.db, ws, { scopes: ["read"], webhooks: true });
    tokens.writeOnly = await newApiToken(deps.db, ws, { scopes: ["write"], webhooks: true });
    tokens.noWebhooks = await newApiToken(deps.db, ws, { scopes: ["read", "write"], webhooks: false });
  });

  const params = (path: string) => Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, n]) => [n, n === "slug" ? ws.slug : "x"]));
  const codeOf = (res: { body?: { errors?: { extensions: { code: string } }[] } }) => res.body?.errors?.[0]?.extensions.code;

  for (const op of OPERATIONS) {
    it(`${op.method.toUpperCase()} ${op.path}`, async () => {
      const callOp = callerFor(routes);
      const as = (token: string | null) => callOp(op.operationId, { token, params: params(op.path) });
      if (op.auth.kind === "none") {
        expect((await as(null)).status).toBe(op.success.status);
        return;
      }
      expect(codeOf(await as(null))).toBe("unauthenticated");

      const asBoard = codeOf(await as(boardToken));
      if (op.auth.boardToken && !op.auth.apiTokenOnly) expect(asBoard).not.toBe("board_scoped_token");
      else expect(asBoard).toBe("board_scoped_token");

      const lacking = await as(op.auth.scope === "read" ? tokens.writeOnly : tokens.readOnly);
      expect([lacking.status, codeOf(lacking)]).toEqual([403, "insufficient_scope"]);

      const noWebhooks = codeOf(await as(tokens.noWebhooks));
      if (op.auth.webhooks) expect(noWebhooks).toBe("webhook_permission_required");
      else expect(["webhook_permission_required", "insufficient_scope", "board_scoped_token"]).not.toContain(noWebhooks);
    });
  }
});
