import { CredentialsSignin } from "next-auth";
import { describe, expect, it } from "vitest";
import { isWrongPassword } from "./session";

describe("isWrongPassword", () => {
  it("knows Auth.js's CredentialsSignin by its type, which survives a bundler renaming the class", () => {
    const refused = new CredentialsSignin();
    expect(isWrongPassword(refused)).toBe(true);
    // What a production build hands the logger: the same error, its class renamed.
    const renamed = Object.defineProperty(new CredentialsSignin(), "name", { value: "j" });
    expect(renamed.name).toBe("j");
    expect(isWrongPassword(renamed)).toBe(true);
  });

  it("treats every other error as a failed sign-in worth an error line", () => {
    expect(isWrongPassword(new Error("database unavailable"))).toBe(false);
  });
});
