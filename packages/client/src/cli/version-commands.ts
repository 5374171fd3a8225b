import type { EaselClient } from "../client";
import type { Connection } from "./usage";

/** `easel-client versions`: one line per stored version, newest first (number, source, date, size, md5, comment). */
export async function versionsCommand(client: EaselClient, conn: Connection, opts: { asset: string; json: boolean }, signal: AbortSignal): Promise<number> {
  for (let page = 1; ; page++) {
    const list = await client.listVersions({ path: { slug: conn.workspace, token: opts.asset }, query: { page: String(page), per_page: "100" }, signal });
    for (const v of list.data) {
      const line = opts.json
        ? JSON.stringify(v)
        : [v.version_number, v.source, v.created_at, v.size, v.md5, v.revertable ? "revertable" : "-", v.comment ?? ""].join("\t");
      process.stdout.write(`${line}\n`);
    }
    if (page >= list.pagy.total_pages) break;
  }
  return 0;
}

/** `easel-client revert`: the head becomes version N's content; prints the new head number. */
export async function revertCommand(client: EaselClient, conn: Connection, opts: { asset: string; version: number; comment?: string; json: boolean }, signal: AbortSignal): Promise<number> {
  const answer = await client.revertAsset({
    path: { slug: conn.workspace, token: opts.asset },
    body: { version_number: opts.version, ...(opts.comment !== undefined ? { comment: opts.comment } : {}) },
    signal,
  });
  process.stdout.write(opts.json ? `${JSON.stringify(answer)}\n` : `reverted ${opts.asset} to version ${opts.version} (head ${answer.head_version_number})\n`);
  return 0;
}
