/**
 * Seeds a running node for the benches: a `team` workspace `bench`, a read/write API token (admin
 * CLI), a board with `assets` small PNGs uploaded the way clients do, and `versions` version
 * writes on the first asset.
 */
import sharp from "sharp";
import { api, cli } from "../scale/cluster";

export type Seeded = { token: string; board: string; asset: string };

export async function seed(origin: string, cliEnv: Record<string, string | undefined>, assets = 30, versions = 20): Promise<Seeded> {
  await cli(cliEnv, "workspace", "create", "bench", "--plan", "team");
  const token = await cli(cliEnv, "token", "create", "bench", "--scopes", "read,write");
  const board = (await api(origin, token, "POST", "/v1/bench/boards", { board: { title: "Bench" } })).body.data.token as string;
  let first = "";
  for (let i = 0; i < assets; i++) {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: (i * 8) % 256, g: 100, b: 50 } } }).png().toBuffer();
    const prep = (await api(origin, token, "POST", "/v1/bench/assets/upload_prepare", { asset: { title: `Asset ${i}`, media_type: "image/png", size: png.length } })).body.data;
    const put = await fetch(prep.upload_url, { method: "PUT", body: png, headers: { "content-type": "image/png" } });
    if (!put.ok) throw new Error(`PUT ${prep.upload_url} → ${put.status}`);
    const a = (await api(origin, token, "POST", "/v1/bench/assets/upload_complete", { asset: { signed_storage_id: prep.signed_storage_id, collection_token: board } })).body.data;
    first ||= a.token;
  }
  for (let i = 0; i < versions; i++) await api(origin, token, "PATCH", `/v1/bench/assets/${first}`, { asset: { create_version: true, comment: `v${i}` } });
  return { token, board, asset: first };
}
