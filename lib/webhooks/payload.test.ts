import { describe, expect, it } from "vitest";
import { serializePayload } from "./payload";
import added from "./sample-events/asset_added.json";
import deleted from "./sample-events/asset_deleted.json";
import updated from "./sample-events/asset_updated.json";

/** What Postgres jsonb does to an object: keys sorted by length, then bytewise. */
function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, jsonbOrder((value as Record<string, unknown>)[k])]));
}

describe("serializePayload", () => {
  it.each([
    ["asset_added", added],
    ["asset_updated", updated],
    ["asset_deleted", deleted],
  ])("writes %s with the documented key order, whatever order it was stored in", (_, sample) => {
    const body = serializePayload(jsonbOrder(sample));
    expect(body).toBe(serializePayload(sample));
    const parsed = JSON.parse(body);
    expect(parsed).toEqual(sample);
    expect(Object.keys(parsed)).toEqual(["event", "timestamp", "organization", "collection", "asset"]);
    expect(Object.keys(parsed.organization)).toEqual(["slug", "name"]);
    expect(Object.keys(parsed.collection)).toEqual(["token", "title"]);
    expect(Object.keys(parsed.asset)).toEqual(Object.keys(sample.asset));
  });

  it("puts old before new in changes and sorts data maps", () => {
    const parsed = JSON.parse(serializePayload(jsonbOrder(updated)));
    expect(Object.keys(parsed.asset.changes)).toEqual(["fields", "title"]);
    expect(Object.keys(parsed.asset.changes.title)).toEqual(["old", "new"]);
    expect(Object.keys(parsed.asset.changes.fields.new)).toEqual(["region", "sku", "status"]);
    expect(JSON.parse(serializePayload(added)).asset.tags).toEqual(["hero", "spring"]);
  });
});
