import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueApiToken } from "../../lib/auth/manage-api-tokens";
import { loadSessionPrincipal } from "../../lib/auth/session-principal";
import { openDb, type DbHandle } from "../../lib/db/client";
import { memberships, users, workspaces } from "../../lib/db/schema";
import { createInvitation } from "../../lib/members/create-invitation";
import { uniq } from "../helpers/factories";

/** `user create`, `member add`, `member remove` (contract §11), run as their own process while a server owns the embedded database, as tests/cli/cli.test.ts does. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-members-cli-"));
let server: DbHandle;

function easel(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, EASEL_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { env, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  server = await openDb({ dataDir, role: "server" });
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const userOf = async (email: string) => (await server.db.select().from(users).where(eq(users.email, email)))[0];
async function roleOf(slug: string, email: string) {
  const [row] = await server.db
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(and(eq(workspaces.slug, slug), eq(users.email, email)));
  return row?.role ?? null;
}

describe("npm run easel -- user create / member add / member remove", () => {
  it("creates a member user, adds them with a role, changes it, removes them", async () => {
    const slug = uniq("mcli");
    const email = `${uniq("person")}@easel.test`;
    expect((await easel("workspace", "create", slug)).code).toBe(0);
    const created = await easel("user", "create", email, "a long password");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(email);
    expect((await userOf(email)).isOwner).toBe(false);
    expect(await roleOf(slug, email)).toBeNull();

    const added = await easel("member", "add", slug, email.toUpperCase(), "--role", "viewer");
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain(`is a viewer of ${slug}`);
    expect(await roleOf(slug, email)).toBe("viewer");
    // The membership is what a session reads: viewer of this workspace only.
    const principal = await loadSessionPrincipal(server.db, (await userOf(email)).id);
    expect(principal?.owner).toBe(false);
    expect([...(principal?.roles.values() ?? [])]).toEqual(["viewer"]);

    expect((await easel("member", "add", slug, email, "--role", "admin")).code).toBe(0);
    expect(await roleOf(slug, email)).toBe("admin");
    expect((await easel("member", "remove", slug, email)).code).toBe(0);
    expect(await roleOf(slug, email)).toBeNull();
  }, 180_000);

  it("refuses unknown workspaces, unknown emails, bad roles and bad input with exit 1 and a message, changing nothing", async () => {
    const slug = uniq("mcli");
    const email = `${uniq("person")}@easel.test`;
    expect((await easel("workspace", "create", slug)).code).toBe(0);
    expect((await easel("user", "create", email, "a long password")).code).toBe(0);

    const cases: [string[], RegExp][] = [
      [["member", "add", "no-such-workspace", email, "--role", "viewer"], /error: no workspace "no-such-workspace"/],
      [["member", "add", slug, "nobody@easel.test", "--role", "viewer"], /error: no user has the email "nobody@easel.test"/],
      [["member", "add", slug, email, "--role", "owner"], /error: unknown role "owner" \(roles: viewer, editor, admin\)/],
      [["member", "remove", slug, email], /error: .* is not a member of/],
      [["member", "remove", "no-such-workspace", email], /error: no workspace/],
      [["member", "remove", slug, "nobody@easel.test"], /error: no user has the email/],
      [["user", "create", "not-an-email", "a long password"], /error: "not-an-email" is not an email address/],
      [["user", "create", `${uniq("p")}@easel.test`, "short"], /error: the password must have at least 8 characters/],
    ];
    for (const [args, message] of cases) {
      const r = await easel(...args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
    expect(await roleOf(slug, email)).toBeNull();
    // A missing --role is a usage error (exit 2), like every other command's missing arguments.
    const usage = await easel("member", "add", slug, email);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--role is required\nusage: member add <slug> <email> --role viewer\|editor\|admin/);
  }, 240_000);

  it("lists who made each token and invitation, and says what a removal revokes before and after (contract §11a)", async () => {
    const slug = uniq("mcli");
    const email = `${uniq("admin")}@easel.test`;
    expect((await easel("workspace", "create", slug)).code).toBe(0);
    expect((await easel("user", "create", email, "a long password")).code).toBe(0);
    expect((await easel("member", "add", slug, email, "--role", "admin")).code).toBe(0);
    expect((await easel("token", "create", slug, "--name", "operator's")).code).toBe(0);
    const user = await userOf(email);
    const [ws] = await server.db.select().from(workspaces).where(eq(workspaces.slug, slug));
    await issueApiToken(server.db, { workspace: ws, name: "theirs", scopes: ["read", "write"], webhooks: false, createdBy: user.id, now: new Date() });
    const invitedEmail = `${uniq("invited")}@easel.test`;
    await createInvitation(server.db, { workspace: ws, email: invitedEmail, role: "admin", createdBy: user.id, now: new Date() });

    const tokens = await easel("token", "list", slug);
    expect(tokens.code).toBe(0);
    const tokenLines = tokens.stdout.trim().split("\n").map((l) => l.split("\t"));
    expect(tokenLines.map((l) => [l[2], l[5], l[6]])).toEqual([
      ["theirs", `by ${email}`, "live"],
      ["operator's", "by unknown", "live"],
    ]);
    const invitationLine = (await easel("invitation", "list", slug)).stdout.trim().split("\t");
    expect([invitationLine[1], invitationLine[2], invitationLine[4]]).toEqual([invitedEmail, "admin", `by ${email}`]);
    expect((await easel("member", "list", slug)).stdout).toContain(`${email}\tadmin\t`);
    expect((await easel("member", "list", slug)).stdout).toContain("made 1 API token and 1 pending invitation");

    const removed = await easel("member", "remove", slug, email);
    expect(removed.code).toBe(0);
    expect(removed.stdout.trim().split("\n")).toEqual([
      `removing them revokes the 1 API token and 1 pending invitation ${email} made in ${slug}`,
      `${email} is no longer a member of ${slug}; revoked 1 API token and 1 pending invitation they made there`,
    ]);
    const after = (await easel("token", "list", slug)).stdout.trim().split("\n").map((l) => l.split("\t"));
    expect(after.map((l) => [l[2], l[6].split(" ")[0]])).toEqual([
      ["theirs", "revoked"],
      ["operator's", "live"],
    ]);
    expect((await easel("invitation", "list", slug)).stdout.trim()).toBe(`${slug} has no pending invitations`);
  }, 240_000);

  it("keeps admin create making owners, and user create never demotes one", async () => {
    const email = `${uniq("owner")}@easel.test`;
    expect((await easel("admin", "create", email, "owner password")).code).toBe(0);
    expect((await userOf(email)).isOwner).toBe(true);
    expect((await easel("user", "create", email, "new owner password")).code).toBe(0);
    expect((await userOf(email)).isOwner).toBe(true);
  }, 120_000);
});
