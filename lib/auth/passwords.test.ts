import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { hashPassword, HASHING_CONCURRENCY, MalformedPasswordHashError, SCRYPT_PARAMS, verifyAgainstNoUser, verifyPassword } from "./passwords";

describe("scrypt password hashes", () => {
  it("round-trips in a self-describing PHC string with a fresh salt each time", async () => {
    const a = await hashPassword("correct horse");
    const b = await hashPassword("correct horse");
    expect(a).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toEqual({ match: true, rehash: false });
  });

  it("refuses a wrong password", async () => {
    const stored = await hashPassword("correct horse");
    expect(await verifyPassword("correct horsE", stored)).toEqual({ match: false, rehash: false });
    expect(await verifyPassword("", stored)).toEqual({ match: false, rehash: false });
  });

  it("verifies a hash made with other parameters and asks for a rehash", async () => {
    const current = await hashPassword("correct horse");
    const older = current.replace(`ln=${SCRYPT_PARAMS.logN}`, "ln=10");
    // Same salt and stored hash, other parameters: it no longer matches, but it parses and says "rehash".
    expect(await verifyPassword("correct horse", older)).toEqual({ match: false, rehash: true });
  });

  it("refuses malformed hashes rather than treating them as a mismatch", async () => {
    const good = await hashPassword("correct horse");
    for (const stored of ["", "plain", "$scrypt$ln=15,r=8,p=1$c2FsdA$", good.replace("$scrypt$", "$argon2id$"), good.replace("ln=15", "ln=40"), "$2b$10$short"]) {
      await expect(verifyPassword("correct horse", stored), stored).rejects.toBeInstanceOf(MalformedPasswordHashError);
    }
  });

  it("verifies a password against no user without ever matching", async () => {
    expect(await verifyAgainstNoUser("anything")).toEqual({ match: false, rehash: false });
  });

  it("runs at most HASHING_CONCURRENCY hashes at once", () => {
    expect(HASHING_CONCURRENCY).toBeGreaterThanOrEqual(1);
    expect(HASHING_CONCURRENCY).toBeLessThan(Math.max(2, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 1));
  });
});

describe("legacy bcrypt hashes", () => {
  it("still verify, and always ask for a rehash to scrypt", async () => {
    for (const prefix of ["$2a$", "$2b$"]) {
      const legacy = (await bcrypt.hash("correct horse", 4)).replace(/^\$2[ab]\$/, prefix);
      expect(await verifyPassword("correct horse", legacy)).toEqual({ match: true, rehash: true });
      expect(await verifyPassword("wrong horse", legacy)).toEqual({ match: false, rehash: true });
    }
  });
});
