import { describe, expect, it } from "vitest";
import { describeMade, madeAnything } from "./describe-made";

describe("describeMade", () => {
  it("names tokens and invitations always, and webhook triggers only when there are any", () => {
    expect(describeMade({ api_tokens: 1, invitations: 0, webhook_triggers: 0 })).toBe("1 API token and 0 pending invitations");
    expect(describeMade({ api_tokens: 2, invitations: 1, webhook_triggers: 1 })).toBe("2 API tokens, 1 pending invitation and 1 webhook trigger");
    expect(describeMade({ api_tokens: 0, invitations: 0, webhook_triggers: 3 })).toBe("0 API tokens, 0 pending invitations and 3 webhook triggers");
  });

  it("counts a trigger alone as something made", () => {
    expect(madeAnything({ api_tokens: 0, invitations: 0, webhook_triggers: 0 })).toBe(false);
    expect(madeAnything({ api_tokens: 0, invitations: 0, webhook_triggers: 1 })).toBe(true);
  });
});
