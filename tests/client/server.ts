/**
 * The built server the client tier runs against, started as `npm start` starts it (the build in
 * this checkout or EASEL_APP_DIR, the embedded database and object store in a data dir of its
 * own), with a workspace of each storage kind and an API token for each, made with the admin CLI
 * as an operator would. Jobs are off (nothing here reads thumbnails) and the per-token rate
 * limit is raised: the tests make hundreds of calls a minute on purpose.
 */
import path from "node:path";
import { builtAppDir, cli, freePort, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";

export type StorageKind = "s3" | "gcs";
export type ClientServer = { origin: string; metricsToken: string; workspaces: Record<StorageKind, { slug: string; token: string }> };

declare module "vitest" {
  export interface ProvidedContext {
    clientServer: ClientServer;
  }
}

export const METRICS_TOKEN = "client-tier-metrics";

export async function startClientServer(work: string, extraEnv: Record<string, string | undefined> = {}): Promise<{ node: EaselNode; server: ClientServer }> {
  const env = {
    EASEL_DATA_DIR: path.join(work, "data"),
    DATABASE_URL: undefined,
    TEST_DATABASE_URL: undefined,
    EASEL_S3_BUCKET: undefined,
    EASEL_GCS_BUCKET: undefined,
    EASEL_PUBLIC_URL: undefined,
    EASEL_JOBS_DISABLED: "1",
    EASEL_RATE_LIMIT_PER_MIN: "1000000",
    EASEL_METRICS_TOKEN: METRICS_TOKEN,
    ...extraEnv,
  };
  const node = startNode(builtAppDir(), env, await freePort());
  try {
    await waitFor200(node);
    const workspaces = {} as ClientServer["workspaces"];
    for (const kind of ["s3", "gcs"] as const) {
      const slug = `client-${kind}`;
      await cli(env, "workspace", "create", slug, "--plan", "enterprise", "--storage", kind);
      workspaces[kind] = { slug, token: await cli(env, "token", "create", slug, "--scopes", "read,write") };
    }
    return { node, server: { origin: node.origin, metricsToken: METRICS_TOKEN, workspaces } };
  } catch (err) {
    await stopNode(node);
    throw err;
  }
}

/** easel_upload_bytes_received_total now (bytes the embedded store received in full). */
export async function uploadBytesReceived(server: ClientServer): Promise<number> {
  const r = await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${server.metricsToken}` } });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}: ${text.slice(0, 200)}`);
  const line = text.split("\n").find((l) => l.startsWith("easel_upload_bytes_received_total"));
  return line ? Number(line.split(/\s+/).at(-1)) : 0;
}
