import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { triggers, type Board, type Workspace } from "../../lib/db/schema";
import type { ResolvedAddress, UrlPolicy } from "../../lib/net/url-guard";
import { attemptDelivery } from "../../lib/webhooks/deliver";
import { newSigningSecret } from "../../lib/webhooks/sign";
import { useTestDeps } from "../helpers/deps";
import { newBoard, newWorkspace } from "../helpers/factories";

/**
 * Kept-alive connections and the SSRF check at delivery: a hook URL's name is resolved and
 * checked before every attempt, and a pooled connection is reused only for the same checked
 * address. The name `hooks.test` resolves through a scripted resolver; 127.0.0.1 and 127.0.0.2 are
 * trusted, anything else private is refused. The receiver listens on 127.0.0.1 only (so an
 * attempt that reached it used a connection to 127.0.0.1) and keeps idle connections open, so a
 * pooled connection is there to be (wrongly) reused.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let server: http.Server;
let port: number;
let connections = 0;
const received: { path: string; host: string }[] = [];
const at = (path: string) => received.filter((r) => r.path === path);
let answer: ResolvedAddress[] = [];

const policy: UrlPolicy = {
  protocols: ["http:"],
  allowPrivate: false,
  trustedAddresses: ["127.0.0.1", "127.0.0.2"],
  resolve: async () => answer,
};

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push({ path: req.url ?? "/", host: req.headers.host ?? "" });
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", () => connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function triggerAt(path: string) {
  const id = `trg_${crypto.randomBytes(8).toString("hex")}`;
  await deps.db.insert(triggers).values({ id, workspaceId: ws.id, boardId: board.id, hook: "asset_added", hookUrl: `http://hooks.test:${port}${path}`, secret: newSigningSecret(), createdAt: new Date(), expirationDate: new Date(Date.now() + 86_400_000) });
  return id;
}

const attempt = (triggerId: string) => attemptDelivery(deps, { triggerId, messageId: `msg_${crypto.randomUUID()}`, payload: { event: "asset_added" } }, { policy });

it("a name that now resolves to a refused address is refused before any request, though a connection to its old address is pooled", async () => {
  const id = await triggerAt("/rebind");
  answer = [{ address: "127.0.0.1", family: 4 }];
  const before = connections;
  expect((await attempt(id)).outcome).toBe("delivered");
  expect((await attempt(id)).outcome).toBe("delivered");
  // Both on one kept-alive connection, which names the host as the URL does.
  expect(connections - before).toBe(1);
  expect(at("/rebind").map((r) => r.host)).toEqual([`hooks.test:${port}`, `hooks.test:${port}`]);

  answer = [{ address: "10.0.0.5", family: 4 }];
  const refused = await attempt(id);
  expect(refused).toMatchObject({ outcome: "failed", responseStatus: null, error: expect.stringMatching(/^private_address: hooks\.test \(resolves to 10\.0\.0\.5\)/) });
  answer = [{ address: "127.0.0.1", family: 4 }, { address: "169.254.169.254", family: 4 }];
  expect(await attempt(id)).toMatchObject({ outcome: "failed", error: expect.stringMatching(/^private_address: /) });
  expect(at("/rebind")).toHaveLength(2);
});

it("a name that now resolves to another allowed address is connected there, not through the pooled connection to the old one", async () => {
  const id = await triggerAt("/moved");
  answer = [{ address: "127.0.0.1", family: 4 }];
  expect((await attempt(id)).outcome).toBe("delivered");
  // 127.0.0.2 passes the check, but nothing listens there: the attempt fails to connect instead
  // of reusing the idle connection to 127.0.0.1.
  answer = [{ address: "127.0.0.2", family: 4 }];
  expect(await attempt(id)).toMatchObject({ outcome: "failed", responseStatus: null, error: expect.stringMatching(/^network: /) });
  expect(at("/moved")).toHaveLength(1);
  answer = [{ address: "127.0.0.1", family: 4 }];
  expect((await attempt(id)).outcome).toBe("delivered");
  expect(at("/moved")).toHaveLength(2);
});
