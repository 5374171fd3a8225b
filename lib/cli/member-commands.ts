import { parseArgs } from "node:util";
import { createMemberUser } from "../auth/users";
import type { Db } from "../db";
import { WORKSPACE_ROLES, type WorkspaceRole } from "../db/schema";
import { DomainError } from "../errors";
import { addMemberByEmail, removeMemberByEmail } from "../members/member-by-email";
import { getWorkspaceOrThrow } from "../workspaces/manage-workspaces";
import { UsageError, type Output } from "./usage";

type Command = { usage: string; run: (db: Db, argv: string[], io: Output) => Promise<void> };

function parse(argv: string[], withRole: boolean, positionals: number, usage: string) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: withRole ? { role: { type: "string" } } : {}, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
  if (parsed.positionals.length !== positionals) throw new UsageError(`expected ${positionals} argument(s)\nusage: ${usage}`);
  return { positionals: parsed.positionals, role: (parsed.values as { role?: string }).role };
}

function roleOf(value: string | undefined, usage: string): WorkspaceRole {
  if (value === undefined) throw new UsageError(`--role is required\nusage: ${usage}`);
  if (!(WORKSPACE_ROLES as readonly string[]).includes(value)) throw new DomainError("validation_failed", `unknown role "${value}" (roles: ${WORKSPACE_ROLES.join(", ")})`, { field: "role" });
  return value as WorkspaceRole;
}

/** People and their workspace roles (contract §11); `admin create` (an owner) stays in commands.ts. */
export const MEMBER_COMMANDS: Record<string, Command> = {
  "user create": {
    usage: "user create <email> <password>",
    async run(db, argv, io) {
      const { positionals } = parse(argv, false, 2, this.usage);
      const user = await createMemberUser(db, { email: positionals[0], password: positionals[1], now: new Date() });
      io.out(`user ${user.email} can sign in${user.isOwner ? " (an owner)" : "; add them to workspaces with: member add <slug> <email> --role viewer|editor|admin"}`);
    },
  },
  "member add": {
    usage: "member add <slug> <email> --role viewer|editor|admin",
    async run(db, argv, io) {
      const { positionals, role } = parse(argv, true, 2, this.usage);
      const checked = roleOf(role, this.usage);
      const workspace = await getWorkspaceOrThrow(db, positionals[0]);
      const user = await addMemberByEmail(db, { workspace, email: positionals[1], role: checked, now: new Date() });
      io.out(`${user.email} is ${checked === "admin" ? "an" : "a"} ${checked} of ${workspace.slug}`);
    },
  },
  "member remove": {
    usage: "member remove <slug> <email>",
    async run(db, argv, io) {
      const { positionals } = parse(argv, false, 2, this.usage);
      const workspace = await getWorkspaceOrThrow(db, positionals[0]);
      const user = await removeMemberByEmail(db, { workspace, email: positionals[1] });
      io.out(`${user.email} is no longer a member of ${workspace.slug}`);
    },
  },
};
