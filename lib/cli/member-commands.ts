import { parseArgs } from "node:util";
import { createMemberUser } from "../auth/users";
import type { Db } from "../db";
import { WORKSPACE_ROLES, type WorkspaceRole } from "../db/schema";
import { DomainError } from "../errors";
import { countAccessMadeBy } from "../members/access-made-by";
import { describeMade, madeAnything } from "../members/describe-made";
import { listMembers } from "../members/list-members";
import { addMemberByEmail, removeMemberByEmail, userByEmailOrThrow } from "../members/member-by-email";
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


/** The line printed before a removal or a role below admin: what it is about to revoke. */
async function sayWhatItRevokes(db: Db, io: Output, input: { workspace: { id: number; slug: string }; email: string; doing: string }) {
  const user = await userByEmailOrThrow(db, input.email);
  const made = (await countAccessMadeBy(db, { workspaceId: input.workspace.id, userIds: [user.id], now: new Date() })).get(user.id);
  if (made && madeAnything(made)) io.out(`${input.doing} revokes the ${describeMade(made)} ${user.email} made in ${input.workspace.slug}`);
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
      if (checked !== "admin") await sayWhatItRevokes(db, io, { workspace, email: positionals[1], doing: `a role below admin` });
      const { user, revoked } = await addMemberByEmail(db, { workspace, email: positionals[1], role: checked, now: new Date() });
      io.out(`${user.email} is ${checked === "admin" ? "an" : "a"} ${checked} of ${workspace.slug}; revoked ${describeMade(revoked)} they made there`);
    },
  },
  "member remove": {
    usage: "member remove <slug> <email>",
    async run(db, argv, io) {
      const { positionals } = parse(argv, false, 2, this.usage);
      const workspace = await getWorkspaceOrThrow(db, positionals[0]);
      await sayWhatItRevokes(db, io, { workspace, email: positionals[1], doing: "removing them" });
      const { user, revoked } = await removeMemberByEmail(db, { workspace, email: positionals[1], now: new Date() });
      io.out(`${user.email} is no longer a member of ${workspace.slug}; revoked ${describeMade(revoked)} they made there`);
    },
  },
  "member list": {
    usage: "member list <slug>",
    async run(db, argv, io) {
      const { positionals } = parse(argv, false, 1, this.usage);
      const workspace = await getWorkspaceOrThrow(db, positionals[0]);
      const members = await listMembers(db, workspace, new Date());
      if (members.length === 0) io.out(`${workspace.slug} has no members (owners are in every workspace)`);
      // Tab-separated: email, role, since, and what removing them (or a role below admin) would revoke.
      for (const m of members) io.out([m.email, m.role, m.created_at, `made ${describeMade(m.made)}`].join("\t"));
    },
  },
};
