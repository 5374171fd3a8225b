import { parseArgs, type ParseArgsConfig } from "node:util";
import { createApiToken, revokeApiToken } from "../auth/api-tokens";
import { createAdminUser } from "../auth/users";
import type { Db } from "../db";
import { SCOPES, type Scope } from "../db/schema";
import { DomainError } from "../errors";
import { createWorkspace, getWorkspaceOrThrow, updateWorkspace } from "../workspaces/manage-workspaces";
import { LISTING_COMMANDS } from "./listing-commands";
import { MEMBER_COMMANDS } from "./member-commands";
import { storageCredentials } from "./storage-credentials";
import { storageVerify } from "./storage-verify";
import { UsageError, type Output } from "./usage";

export { UsageError, type Output } from "./usage";

type Command = { usage: string; run: (db: Db, argv: string[], io: Output) => Promise<void> };

function parse(argv: string[], options: NonNullable<ParseArgsConfig["options"]>, positionals: number, usage: string) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
  if (parsed.positionals.length !== positionals) throw new UsageError(`expected ${positionals} argument(s)\nusage: ${usage}`);
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
}

const str = (v: string | boolean | undefined) => (typeof v === "string" ? v : undefined);

function scopesOf(value: string | undefined): Scope[] {
  const list = (value ?? "read").split(",").map((s) => s.trim()).filter(Boolean);
  const bad = list.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad || !list.length) throw new DomainError("validation_failed", `unknown scope "${bad ?? ""}" (scopes: read, write)`, { field: "scopes" });
  return [...new Set(list)] as Scope[];
}

function onOff(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new DomainError("validation_failed", `--streaming takes on or off, not "${value}"`, { field: "streaming" });
}

export const COMMANDS: Record<string, Command> = {
  "workspace create": {
    usage: "workspace create <slug> [--name N] [--plan P] [--trial-of P] [--storage s3|gcs]",
    async run(db, argv, io) {
      const { values, positionals } = parse(argv, { name: { type: "string" }, plan: { type: "string" }, "trial-of": { type: "string" }, storage: { type: "string" } }, 1, this.usage);
      const ws = await createWorkspace(db, { slug: positionals[0], name: str(values.name), plan: str(values.plan), trialOf: str(values["trial-of"]), storage: str(values.storage), now: new Date() });
      io.out(`created workspace ${ws.slug} (plan ${ws.plan}${ws.trialOf ? `, trial of ${ws.trialOf}` : ""}, storage ${ws.storageKind})`);
    },
  },
  "workspace update": {
    usage: "workspace update <slug> [--plan P] [--trial-of P|none] [--streaming on|off]",
    async run(db, argv, io) {
      const { values, positionals } = parse(argv, { plan: { type: "string" }, "trial-of": { type: "string" }, streaming: { type: "string" } }, 1, this.usage);
      const ws = await updateWorkspace(db, { slug: positionals[0], plan: str(values.plan), trialOf: str(values["trial-of"]), streaming: onOff(str(values.streaming)), now: new Date() });
      io.out(`updated workspace ${ws.slug} (plan ${ws.plan}${ws.trialOf ? `, trial of ${ws.trialOf}` : ""}, streaming ${ws.streamingEnabled ? "on" : "off"})`);
    },
  },
  "token create": {
    usage: "token create <slug> [--scopes read,write] [--webhooks] [--name N]",
    async run(db, argv, io) {
      const { values, positionals } = parse(argv, { scopes: { type: "string" }, webhooks: { type: "boolean" }, name: { type: "string" } }, 1, this.usage);
      const scopes = scopesOf(str(values.scopes));
      const ws = await getWorkspaceOrThrow(db, positionals[0]);
      const { token } = await createApiToken(db, { workspaceId: ws.id, name: str(values.name) ?? "cli", scopes, webhooks: values.webhooks === true, now: new Date() });
      io.out(`# API token for ${ws.slug} (scopes ${scopes.join(",")}${values.webhooks ? ", webhooks" : ""}); shown once:`);
      io.out(token);
    },
  },
  "token revoke": {
    usage: "token revoke <token>",
    async run(db, argv, io) {
      const { positionals } = parse(argv, {}, 1, this.usage);
      if (!(await revokeApiToken(db, positionals[0], new Date()))) throw new DomainError("validation_failed", "no live API token matches", { field: "token" });
      io.out("revoked");
    },
  },
  "admin create": {
    usage: "admin create <email> <password>",
    async run(db, argv, io) {
      const { positionals } = parse(argv, {}, 2, this.usage);
      const user = await createAdminUser(db, { email: positionals[0], password: positionals[1], now: new Date() });
      io.out(`admin ${user.email} can sign in (an owner: every workspace)`);
    },
  },
  ...LISTING_COMMANDS,
  ...MEMBER_COMMANDS,
  "storage verify": storageVerify,
  "storage credentials": storageCredentials,
};
