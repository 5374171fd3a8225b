import crypto from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { messageIdFor, newSigningSecret, signDelivery } from "./sign";

/** A signed message as a receiver gets it. */
class Fixture {
  readonly secret = newSigningSecret();
  readonly body = JSON.stringify({ event: "asset_added", asset: { id: 1, token: "tok" } });
  readonly id = messageIdFor("evt_1", "trg_1");
  headers(at = new Date()): Record<string, string> {
    return { ...signDelivery(this.secret, this.id, at, this.body) };
  }
}

describe("signDelivery", () => {
  it("verifies with the standardwebhooks verifier", () => {
    const f = new Fixture();
    expect(new Webhook(f.secret).verify(f.body, f.headers())).toEqual(JSON.parse(f.body));
  });

  it("is v1, base64 HMAC-SHA256 of id.timestamp.body", () => {
    const f = new Fixture();
    const h = f.headers(new Date(1_700_000_000_500));
    expect(h["webhook-timestamp"]).toBe("1700000000");
    const key = Buffer.from(f.secret.slice("whsec_".length), "base64");
    const mac = crypto.createHmac("sha256", key).update(`${f.id}.1700000000.${f.body}`).digest("base64");
    expect(h["webhook-signature"]).toBe(`v1,${mac}`);
  });

  it("fails verification with another secret", () => {
    const f = new Fixture();
    expect(() => new Webhook(newSigningSecret()).verify(f.body, f.headers())).toThrow(WebhookVerificationError);
  });

  it("fails verification when the body was changed", () => {
    const f = new Fixture();
    expect(() => new Webhook(f.secret).verify(f.body.replace("tok", "tak"), f.headers())).toThrow(WebhookVerificationError);
  });

  it("fails verification when the id was changed", () => {
    const f = new Fixture();
    expect(() => new Webhook(f.secret).verify(f.body, { ...f.headers(), "webhook-id": "msg_other" })).toThrow(WebhookVerificationError);
  });

  it("fails verification when the timestamp is outside the receiver's tolerance", () => {
    const f = new Fixture();
    expect(() => new Webhook(f.secret).verify(f.body, f.headers(new Date(Date.now() - 10 * 60_000)))).toThrow(/too old/);
  });
});

describe("messageIdFor", () => {
  it("is stable per event and trigger, and differs between triggers", () => {
    expect(messageIdFor("e", "t1")).toBe(messageIdFor("e", "t1"));
    expect(messageIdFor("e", "t1")).not.toBe(messageIdFor("e", "t2"));
    expect(messageIdFor("e", "t1")).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
  });
});
