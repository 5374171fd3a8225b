import crypto from "node:crypto";
import bcrypt from "bcryptjs";
import { eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { handlers } from "../../lib/auth/session";
import { verifySignIn } from "../../lib/auth/sign-in";
import { SIGN_IN_WINDOW_MS } from "../../lib/auth/sign-in-throttle";
import { createAdminUser } from "../../lib/auth/users";
import { signInFailures, users, type User, type Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { CLIENT_ADDRESS_HEADER } from "../../lib/server/http-server.mjs";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace, uniq } from "../helpers/factories";

/**
 * Contract §12, sign-in: at most 10 failures per email and per client address in 15 minutes,
 * unknown emails as slow as wrong passwords, hashing off the main thread. Real database, real
 * password hashing, the real next-auth handler and /v1 route handlers in-process.
 */
const PASSWORD = "correct horse battery";
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let user: User;

const randomAddress = () => `10.${[...crypto.randomBytes(3)].join(".")}`;
const signIn = (email: string, password: string, clientAddress = randomAddress()) => verifySignIn(deps, { email, password, clientAddress });
/** A new window: the clock moves past every failure so far. */
const nextWindow = () => deps.time.advance(SIGN_IN_WINDOW_MS + 1000);

beforeAll(async () => {
  deps = await useTestDeps();
  user = await createAdminUser(deps.db, { email: `${uniq("owner")}@easel.test`, password: PASSWORD, now: new Date() });
});

afterAll(async () => {
  // The PostgreSQL test database is shared with other files.
  await deps.db.delete(signInFailures).where(like(signInFailures.subject, "email:%@easel.test"));
});

describe("the throttle", () => {
  it("refuses the 11th attempt on one email from many addresses, even with the right password, until the window passes", async () => {
    nextWindow();
    expect((await signIn(user.email, PASSWORD))?.id).toBe(user.id);
    for (let i = 0; i < 10; i++) expect(await signIn(user.email, `wrong ${i}`)).toBeNull();
    expect(await signIn(user.email, PASSWORD)).toBeNull();
    expect(await signIn(user.email.toUpperCase(), PASSWORD)).toBeNull();
    deps.time.advance(SIGN_IN_WINDOW_MS - 60_000);
    expect(await signIn(user.email, PASSWORD)).toBeNull();
    deps.time.advance(60_000 + 1000);
    expect((await signIn(user.email, PASSWORD))?.id).toBe(user.id);
  });

  it("refuses the 11th attempt from one address across many emails, even with the right password, until the window passes", async () => {
    nextWindow();
    const address = randomAddress();
    for (let i = 0; i < 10; i++) expect(await signIn(`${uniq("nobody")}@easel.test`, PASSWORD, address)).toBeNull();
    expect(await signIn(user.email, PASSWORD, address)).toBeNull();
    // The same email from another address is not this address's business.
    expect((await signIn(user.email, PASSWORD))?.id).toBe(user.id);
    // A success does not clear the address's failures.
    expect(await signIn(user.email, PASSWORD, address)).toBeNull();
    nextWindow();
    expect((await signIn(user.email, PASSWORD, address))?.id).toBe(user.id);
  });
});

describe("timing", () => {
  it("an unknown email costs what a wrong password costs (medians of 50 interleaved tries within 10 %)", async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    const timed = async (email: string) => {
      nextWindow();
      const started = performance.now();
      expect(await signIn(email, "not the password")).toBeNull();
      return performance.now() - started;
    };
    // Interleaved, and in alternating order (ABBA), so neither kind always runs first.
    for (let i = 0; i < 50; i++) {
      if (i % 2 === 0) known.push(await timed(user.email));
      unknown.push(await timed(`${uniq("ghost")}@easel.test`));
      if (i % 2 === 1) known.push(await timed(user.email));
    }
    const [k, u] = [median(known), median(unknown)];
    console.log(`sign-in medians over 50 tries: known email, wrong password ${k.toFixed(1)} ms; unknown email ${u.toFixed(1)} ms`);
    expect(Math.abs(k - u) / Math.max(k, u)).toBeLessThan(0.1);
  }, 120_000);
});

describe("hashing off the main thread", () => {
  let ws: Workspace;
  let token: string;

  const rateLimit = process.env.EASEL_RATE_LIMIT_PER_MIN;
  beforeAll(async () => {
    // Hundreds of calls in a few seconds: this measures latency, not the per-token rate limit.
    process.env.EASEL_RATE_LIMIT_PER_MIN = "1000000";
    resetEnvCache();
    ws = await newWorkspace(deps.db);
    token = await newApiToken(deps.db, ws, { scopes: ["read"] });
  });

  afterAll(() => {
    if (rateLimit === undefined) delete process.env.EASEL_RATE_LIMIT_PER_MIN;
    else process.env.EASEL_RATE_LIMIT_PER_MIN = rateLimit;
    resetEnvCache();
  });

  /**
   * Another tenant's GET /v1/:slug/boards through the real route handler, timed from `sentAt` (when
   * the call was due, so time spent waiting for a blocked event loop counts) to its last byte.
   */
  async function listBoards(sentAt = performance.now()): Promise<number> {
    const started = sentAt;
    const req = new Request(`http://easel.test/v1/${ws.slug}/boards`, { headers: { authorization: `Bearer ${token}` } });
    const res = await boardsRoute.GET(req as never, { params: Promise.resolve({ slug: ws.slug }) });
    await res.text();
    expect(res.status).toBe(200);
    return performance.now() - started;
  }

  /** Another tenant's calls, each due 5 ms after the one before answered, until `busy` settles. */
  async function latenciesWhile(busy: Promise<unknown>): Promise<number[]> {
    let done = false;
    void busy.finally(() => (done = true));
    const out: number[] = [];
    while (!done) {
      const due = performance.now() + 5;
      await new Promise((resolve) => setTimeout(resolve, 5));
      out.push(await listBoards(due));
    }
    return out;
  }

  it("16 simultaneous sign-ins leave another tenant's p99 under 50 ms", async () => {
    for (let i = 0; i < 20; i++) await listBoards(); // warm the route
    nextWindow();
    const baseline = await latenciesWhile(new Promise((resolve) => setTimeout(resolve, 1500)));
    const signIns = Promise.all(Array.from({ length: 16 }, (_, i) => signIn(i % 2 ? user.email : `${uniq("ghost")}@easel.test`, i % 4 === 1 ? PASSWORD : "wrong")));
    const during = await latenciesWhile(signIns);
    const results = await signIns;
    expect(results.filter((r) => r?.id === user.id)).toHaveLength(4);
    console.log(`another tenant's GET boards: p99 ${p99(baseline).toFixed(1)} ms alone (${baseline.length} calls), ${p99(during).toFixed(1)} ms during 16 sign-ins (${during.length} calls)`);
    // Says so when the machine is too busy to measure this at all, rather than blaming sign-in.
    expect(p99(baseline), "p99 with no sign-in running: the machine is too busy for this measurement").toBeLessThan(50);
    expect(during.length).toBeGreaterThanOrEqual(50);
    expect(p99(during)).toBeLessThan(50);
  }, 60_000);
});

describe("legacy bcrypt hashes", () => {
  it("sign in and leave a scrypt hash behind", async () => {
    nextWindow();
    const email = `${uniq("legacy")}@easel.test`;
    const [legacy] = await deps.db
      .insert(users)
      .values({ email, passwordHash: await bcrypt.hash(PASSWORD, 10), isOwner: true, createdAt: new Date() })
      .returning();
    expect(await signIn(email, "wrong password")).toBeNull();
    expect((await stored(legacy.id)).startsWith("$2")).toBe(true);
    expect((await signIn(email, PASSWORD))?.id).toBe(legacy.id);
    expect(await stored(legacy.id)).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
    expect((await signIn(email, PASSWORD))?.id).toBe(legacy.id);
  });

  async function stored(id: number) {
    const [row] = await deps.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, id));
    return row.hash;
  }
});

describe("through next-auth's credentials callback (POST /api/auth/callback/credentials)", () => {
  const SERVER_HEADER_KEY = Symbol.for("easel.clientAddressHeader");
  const origin = "http://easel.test";

  beforeAll(() => {
    // As Easel's server does at start (lib/server/http-server.mjs).
    (globalThis as { [SERVER_HEADER_KEY]?: string })[SERVER_HEADER_KEY] = CLIENT_ADDRESS_HEADER;
  });
  afterAll(() => {
    delete (globalThis as { [SERVER_HEADER_KEY]?: string })[SERVER_HEADER_KEY];
  });

  async function postCredentials(email: string, password: string, address: string) {
    const csrf = await handlers.GET(new Request(`${origin}/api/auth/csrf`) as never);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const body = new URLSearchParams({ csrfToken, email, password, callbackUrl: `${origin}/boards` });
    const res = await handlers.POST(
      new Request(`${origin}/api/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, [CLIENT_ADDRESS_HEADER]: address },
        body,
      }) as never,
    );
    const sessionCookie = res.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
    return { status: res.status, location: res.headers.get("location") ?? "", signedIn: Boolean(sessionCookie) };
  }

  it("signs in, and after 10 failures from one address answers that address exactly like a wrong password", async () => {
    nextWindow();
    const address = randomAddress();
    const ok = await postCredentials(user.email, PASSWORD, address);
    expect(ok).toMatchObject({ status: 302, location: `${origin}/boards`, signedIn: true });

    const wrong = await postCredentials(user.email, "wrong", address);
    expect(wrong.signedIn).toBe(false);
    expect(wrong.location).toContain("error=CredentialsSignin");
    for (let i = 0; i < 9; i++) await postCredentials(`${uniq("nobody")}@easel.test`, "wrong", address);

    const refused = await postCredentials(user.email, PASSWORD, address);
    expect(refused).toEqual(wrong);
    // Another address is not affected: the header the server sets is what counts.
    expect((await postCredentials(user.email, PASSWORD, randomAddress())).signedIn).toBe(true);
  });
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)];
}
