import fs from "node:fs";
import path from "node:path";
import { OPERATIONS, type Operation } from "../../lib/openapi/operations";
import { call, type Answer, type Call } from "../helpers/call-route";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
type RouteModule = Record<string, Handler>;

export type RouteFile = {
  /** Relative to the project root, e.g. app/v1/[slug]/boards/route.ts */
  file: string;
  /** OpenAPI template of its path, e.g. /v1/{slug}/boards; null for a catch-all ([...rest]). */
  template: string | null;
  module: RouteModule;
};

const ROOT = path.resolve(import.meta.dirname, "../..");

/** app/v1/[slug]/assets/[token]/route.ts → /v1/{slug}/assets/{token}. */
export function templateOf(file: string): string | null {
  const dir = path.dirname(file).split(path.sep).slice(1); // drop "app"
  if (dir.some((seg) => seg.startsWith("[..."))) return null;
  return "/" + dir.map((seg) => (seg.startsWith("[") ? `{${seg.slice(1, -1)}}` : seg)).join("/");
}

/** Every route file under app/v1, imported. */
export async function v1Routes(): Promise<RouteFile[]> {
  const files = fs
    .readdirSync(path.join(ROOT, "app/v1"), { recursive: true, encoding: "utf8" })
    .filter((f) => path.basename(f) === "route.ts")
    .map((f) => path.join("app/v1", f))
    .sort();
  return Promise.all(files.map(async (file) => ({ file, template: templateOf(file), module: (await import(/* @vite-ignore */ path.join(ROOT, file))) as RouteModule })));
}

/** The methods a route file answers, read from its CORS preflight's Allow header; null when it answers no method (a catch-all). */
export async function allowedMethods(route: RouteFile): Promise<string[] | null> {
  const res = await route.module.OPTIONS(new Request(`http://easel.test${route.template ?? "/v1/x"}`, { method: "OPTIONS" }), { params: Promise.resolve({}) });
  if (res.status === 404) return null;
  return (res.headers.get("allow") ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m && m !== "OPTIONS");
}

export type OpCall = Omit<Call, "path" | "method" | "params"> & { params?: Record<string, string>; query?: string };

/** Calls the route handler of a documented operation, through the integration suite's call helper. */
export function callerFor(routes: RouteFile[]) {
  return (operationId: string, c: OpCall = {}): Promise<Answer> => {
    const op = OPERATIONS.find((o) => o.operationId === operationId) as Operation;
    if (!op) throw new Error(`no operation ${operationId}`);
    const route = routes.find((r) => r.template === op.path);
    if (!route) throw new Error(`no route file for ${op.path}`);
    const params = c.params ?? {};
    const concrete = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (params[name] === undefined) throw new Error(`${operationId}: missing path parameter ${name}`);
      return encodeURIComponent(params[name]);
    });
    const method = op.method.toUpperCase();
    return call(route.module[method], { ...c, method, path: concrete + (c.query ? `?${c.query}` : ""), params });
  };
}
