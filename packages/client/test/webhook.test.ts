import { describe, expect, it } from "vitest";
import { messageIdFor, newSigningSecret, signDelivery } from "../../../lib/webhooks/sign";
import { EaselError, verifyWebhook } from "../src/index";

// The server's own signer (lib/webhooks/sign.ts) makes the deliveries: what Easel sends, this accepts.
describe("verifyWebhook", () => {
  const secret = newSigningSecret();
  const body = JSON.stringify({ event: "asset_added", data: { token: "tok" } });
  const headers = () => signDelivery(secret, messageIdFor("event-1", "trigger-1"), new Date(), body);

  it("accepts a delivery Easel signed, with a Headers object, a plain record or bytes", () => {
    expect(verifyWebhook(secret, headers(), body)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, new Headers(headers()), new TextEncoder().encode(body))).toEqual(JSON.parse(body));
    const upper = Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, upper, body)).toEqual(JSON.parse(body));
  });

  it("refuses another secret, a changed body, and a stale timestamp", () => {
    const refused = (fn: () => unknown) => {
      const err = (() => {
        try {
          fn();
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(EaselError);
      expect(err).toMatchObject({ status: 401, code: "invalid_webhook_signature" });
    };
    refused(() => verifyWebhook(newSigningSecret(), headers(), body));
    refused(() => verifyWebhook(secret, headers(), body.replace("tok", "tak")));
    refused(() => verifyWebhook(secret, signDelivery(secret, "msg_1", new Date(Date.now() - 3600_000), body), body));
  });
});
