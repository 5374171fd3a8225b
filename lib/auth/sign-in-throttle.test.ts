import crypto from "node:crypto";
import { inArray, like } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { testDb } from "../../tests/helpers/db";
import { testClock } from "../../tests/helpers/deps";
import { uniq } from "../../tests/helpers/factories";
import type { Db } from "../db";
import { signInFailures } from "../db/schema";
import { openSignInAttempt, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS, signInSubjects, type SignInSubjects } from "./sign-in-throttle";

let db: Db;
beforeAll(async () => {
  ({ db } = await testDb());
});

const randomAddress = () => `10.${[...crypto.randomBytes(3)].join(".")}`;
const fresh = (): SignInSubjects => signInSubjects(`${uniq("u")}@easel.test`, randomAddress());

async function rowsOf(...subjects: string[]) {
  return db.select().from(signInFailures).where(inArray(signInFailures.subject, subjects));
}

async function fail(subjects: SignInSubjects, now: Date) {
  const attempt = await openSignInAttempt(db, subjects, now);
  expect(attempt, "attempt allowed").not.toBeNull();
  attempt!.failed();
}

describe("sign-in throttle", () => {
  it("allows 10 failures per subject, then refuses without leaving a row", async () => {
    const time = testClock();
    const s = fresh();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) await fail(s, time.clock());
    expect(await rowsOf(s.email)).toHaveLength(10);
    expect(await openSignInAttempt(db, s, time.clock())).toBeNull();
    expect(await rowsOf(s.email)).toHaveLength(10);
    expect(await rowsOf(s.address)).toHaveLength(10);
  });

  it("limits the email and the address each on its own", async () => {
    const time = testClock();
    const victim = `${uniq("v")}@easel.test`;
    for (let i = 0; i < 10; i++) await fail(signInSubjects(victim, randomAddress()), time.clock());
    expect(await openSignInAttempt(db, signInSubjects(victim, randomAddress()), time.clock())).toBeNull();

    const address = randomAddress();
    await db.delete(signInFailures).where(inArray(signInFailures.subject, [`ip:${address}`]));
    for (let i = 0; i < 10; i++) await fail(signInSubjects(`${uniq("e")}@easel.test`, address), time.clock());
    expect(await openSignInAttempt(db, signInSubjects(`${uniq("other")}@easel.test`, address), time.clock())).toBeNull();
  });

  it("lets failures age out of the 15-minute window one by one (the test clock moves)", async () => {
    const time = testClock();
    const s = fresh();
    await fail(s, time.clock());
    time.advance(60_000);
    for (let i = 1; i < 10; i++) await fail(s, time.clock());
    expect(await openSignInAttempt(db, s, time.clock())).toBeNull();
    // The first failure leaves the window one minute before the rest: room for exactly one more.
    time.advance(SIGN_IN_WINDOW_MS - 60_000 + 1);
    await fail(s, time.clock());
    expect(await openSignInAttempt(db, s, time.clock())).toBeNull();
    time.advance(SIGN_IN_WINDOW_MS);
    expect(await openSignInAttempt(db, s, time.clock())).not.toBeNull();
  });

  it("prunes rows past the window as attempts come", async () => {
    const time = testClock();
    const s = fresh();
    for (let i = 0; i < 3; i++) await fail(s, time.clock());
    time.advance(SIGN_IN_WINDOW_MS + 1);
    await fail(fresh(), time.clock());
    expect(await rowsOf(s.email, s.address)).toHaveLength(0);
  });

  it("a success clears the email's failures and only its own record of the address", async () => {
    const time = testClock();
    const s = fresh();
    for (let i = 0; i < 9; i++) await fail(s, time.clock());
    const attempt = await openSignInAttempt(db, s, time.clock());
    await attempt!.succeeded();
    expect(await rowsOf(s.email)).toHaveLength(0);
    expect(await rowsOf(s.address)).toHaveLength(9);
  });

  it("cuts a burst of simultaneous attempts at the limit", async () => {
    const time = testClock();
    const s = fresh();
    const attempts = await Promise.all(Array.from({ length: 25 }, () => openSignInAttempt(db, s, time.clock())));
    expect(attempts.filter(Boolean)).toHaveLength(SIGN_IN_MAX_FAILURES);
    expect(await rowsOf(s.email)).toHaveLength(SIGN_IN_MAX_FAILURES);
  });

  it("counts an IPv6 client by its /64", () => {
    expect(signInSubjects("a@easel.test", "2001:db8:0:1::5").address).toBe("ip:2001:db8:0:1::/64");
    expect(signInSubjects("a@easel.test", "2001:0db8:0000:0001:ffff:0:0:9").address).toBe("ip:2001:db8:0:1::/64");
    expect(signInSubjects("a@easel.test", "::1").address).toBe("ip:0:0:0:0::/64");
    expect(signInSubjects("a@easel.test", "fe80::1:2:3:4").address).toBe("ip:fe80:0:0:0::/64");
    expect(signInSubjects("a@easel.test", "198.51.100.4").address).toBe("ip:198.51.100.4");
    expect(signInSubjects("a@easel.test", "unknown").address).toBe("ip:unknown");
  });
});

// Keep the shared PostgreSQL test database tidy for the other files.
describe.sequential("cleanup", () => {
  it("removes this file's rows", async () => {
    await db.delete(signInFailures).where(like(signInFailures.subject, "email:%@easel.test"));
    expect(await db.select().from(signInFailures).where(like(signInFailures.subject, "email:%@easel.test"))).toHaveLength(0);
  });
});
