import { parseArgs } from "node:util";
import type { CreatorJson } from "../auth/creator";
import { listApiTokens } from "../auth/manage-api-tokens";
import type { Db } from "../db";
import { listPendingInvitations } from "../members/list-invitations";
import { getWorkspaceOrThrow } from "../workspaces/manage-workspaces";
import { UsageError, type Output } from "./usage";

type Command = { usage: string; run: (db: Db, argv: string[], io: Output) => Promise<void> };

function slugOf(argv: string[], usage: string): string {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
  if (parsed.positionals.length !== 1) throw new UsageError(`expected 1 argument(s)\nusage: ${usage}`);
  return parsed.positionals[0];
}

/** Tokens from the CLI and those older than the record of who made them have no creator. */
const byWhom = (creator: CreatorJson) => `by ${creator ? creator.email : "unknown"}`;

/** Who holds which API token and invitation of a workspace, with who made each (contract §11a). One tab-separated line each. */
export const LISTING_COMMANDS: Record<string, Command> = {
  "token list": {
    usage: "token list <slug>",
    async run(db, argv, io) {
      const workspace = await getWorkspaceOrThrow(db, slugOf(argv, this.usage));
      const tokens = await listApiTokens(db, workspace);
      if (tokens.length === 0) io.out(`${workspace.slug} has no API tokens`);
      for (const t of tokens) {
        const rights = [...t.scopes, ...(t.webhooks ? ["webhooks"] : [])].join(",");
        io.out([t.id, `${t.prefix}…`, t.name, rights, `created ${t.created_at}`, byWhom(t.created_by), t.revoked_at ? `revoked ${t.revoked_at}` : "live"].join("\t"));
      }
    },
  },
  "invitation list": {
    usage: "invitation list <slug>",
    async run(db, argv, io) {
      const workspace = await getWorkspaceOrThrow(db, slugOf(argv, this.usage));
      const pending = await listPendingInvitations(db, workspace, new Date());
      if (pending.length === 0) io.out(`${workspace.slug} has no pending invitations`);
      for (const i of pending) io.out([i.id, i.email, i.role, `expires ${i.expires_at}`, byWhom(i.created_by)].join("\t"));
    },
  },
};
