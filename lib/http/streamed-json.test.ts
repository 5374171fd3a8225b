import { describe, expect, it } from "vitest";
import { streamedJson, streamedJsonArray } from "./streamed-json";

const big = (i: number) => ({ id: i, text: "w".repeat(100_000), title: `é “${i}” \u2028 \\ "`, tags: ["a", "b"], fields: { k: "v" }, none: undefined, nothing: null });

describe("streamedJson", () => {
  it.each([
    ["an empty page", { data: [], pagy: { current_page: 1, page_items: 0, total_pages: 1, total_count: 0 } }],
    ["a page of large assets (several turns of the loop)", { data: Array.from({ length: 20 }, (_, i) => big(i)), pagy: { current_page: 1 } }],
    ["members without JSON text, arrays holding them, nested arrays", { a: undefined, data: [undefined, () => 1, 1, [2, [3]]], b: () => 1, c: "x", d: { e: undefined, f: [undefined] } }],
    ["an answer with no array", { explanation: "Looking for images.", interpretation: { kinds: ["image"], since: null } }],
  ])("writes the bytes Response.json writes: %s", async (_name, body) => {
    const streamed = streamedJson(body as Record<string, unknown>, 201, { "x-extra": "1" });
    const whole = Response.json(body);
    expect(streamed.status).toBe(201);
    expect(streamed.headers.get("content-type")).toBe(whole.headers.get("content-type"));
    expect(streamed.headers.get("x-extra")).toBe("1");
    const [got, want] = await Promise.all([streamed.arrayBuffer(), whole.arrayBuffer()]);
    expect(Buffer.from(got).equals(Buffer.from(want))).toBe(true);
  });

  it.each([[[]], [["1"]], [Array.from({ length: 30 }, (_, i) => JSON.stringify(big(i)))]])("writes an array of serialised elements as JSON.stringify writes the array (%#)", async (elements) => {
    const got = await streamedJsonArray(elements).text();
    expect(got).toBe(JSON.stringify(elements.map((e) => JSON.parse(e) as unknown)));
  });

  it("serialises only as fast as the reader reads", async () => {
    let serialised = 0;
    const counted = { toJSON: () => (serialised++, "x".repeat(100_000)) };
    const reader = streamedJson({ data: Array.from({ length: 50 }, () => counted) }).body!.getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(serialised).toBeLessThan(5);
    await reader.cancel();
  });
});
