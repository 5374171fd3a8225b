import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import type { Resolver } from "../net/url-guard";
import { assertHookUrl } from "./check-hook-url";
import { hookUrlPolicy } from "./policy";

const dnsOf =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw new Error("ENOTFOUND");
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const resolve = dnsOf({
  "hooks.example.com": ["93.184.215.14"],
  "rebind.example.com": ["10.0.0.7"],
  "mixed.example.com": ["93.184.215.14", "127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "v6.example.com": ["fd00::1"],
});
const strict = hookUrlPolicy({ allowPrivate: false, resolve });
const open = hookUrlPolicy({ allowPrivate: true, resolve });

async function reasonOf(url: string, policy = strict): Promise<unknown> {
  try {
    await assertHookUrl(url, policy);
    return "accepted";
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("invalid_hook_url");
    return (err as DomainError).extensions.reason;
  }
}

describe("assertHookUrl", () => {
  it("accepts http and https URLs of public hosts", async () => {
    expect(await assertHookUrl("https://hooks.example.com/easel?x=1", strict)).toBe("https://hooks.example.com/easel?x=1");
    expect(await reasonOf("http://hooks.example.com/hook")).toBe("accepted");
    expect(await reasonOf("https://93.184.215.14/hook")).toBe("accepted");
  });

  it.each([
    ["ftp://hooks.example.com/x", "scheme"],
    ["javascript:alert(1)", "scheme"],
    ["not a url", "invalid_url"],
    ["https://user:pw@hooks.example.com/", "credentials"],
    ["http://127.0.0.1:8080/", "private_address"],
    ["http://localhost/", "private_address"],
    ["http://[::1]/", "private_address"],
    ["http://0x7f.1/", "private_address"],
    ["http://2130706433/", "private_address"],
    ["http://10.1.2.3/", "private_address"],
    ["http://192.168.0.10/", "private_address"],
    ["http://169.254.169.254/latest/meta-data/", "private_address"],
    ["http://[::ffff:127.0.0.1]/", "private_address"],
    ["https://rebind.example.com/", "private_address"],
    ["https://mixed.example.com/", "private_address"],
    ["https://metadata.example.com/", "private_address"],
    ["https://v6.example.com/", "private_address"],
    ["https://nowhere.example.com/", "dns"],
  ])("refuses %s (%s) without EASEL_WEBHOOK_ALLOW_PRIVATE", async (url, reason) => {
    expect(await reasonOf(url)).toBe(reason);
  });

  it("lets private and loopback targets through with the flag, but never another scheme", async () => {
    expect(await reasonOf("http://127.0.0.1:8080/", open)).toBe("accepted");
    expect(await reasonOf("https://rebind.example.com/", open)).toBe("accepted");
    expect(await reasonOf("ftp://127.0.0.1/", open)).toBe("scheme");
  });
});
