import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeVector, startEmbeddingsServer, type FakeEmbeddings } from "../../tests/helpers/embeddings-server";
import { embed, EmbeddingsError, MAX_INPUT_CHARS } from "./client";
import type { EmbeddingsConfig } from "./config";
import { unitVector } from "./vector";

let fake: FakeEmbeddings;
let config: EmbeddingsConfig;

beforeAll(async () => {
  fake = await startEmbeddingsServer();
  config = { url: fake.url, model: "bag-of-words", apiKey: "sk-test", minSimilarity: 0.3 };
});
afterAll(() => fake.close());

const failure = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(EmbeddingsError);
  return (err as EmbeddingsError).reason;
};

describe("embed", () => {
  it("posts the model and inputs with the key, and returns unit vectors in input order", async () => {
    fake.mode = "ok";
    const [a, b] = await embed(config, ["golden retriever", "harbour at dawn"], { timeoutMs: 5000 });
    expect(fake.requests.at(-1)).toEqual({ authorization: "Bearer sk-test", model: "bag-of-words" });
    expect(a).toEqual(unitVector(fakeVector("golden retriever")));
    expect(b).toEqual(unitVector(fakeVector("harbour at dawn")));
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
  });

  it("cuts inputs at the length limit", async () => {
    fake.mode = "ok";
    await embed({ ...config, apiKey: undefined }, ["x".repeat(MAX_INPUT_CHARS + 500)], { timeoutMs: 5000 });
    expect(fake.inputs.at(-1)).toHaveLength(MAX_INPUT_CHARS);
    expect(fake.requests.at(-1)?.authorization).toBeUndefined();
  });

  it("names each way the service can fail", async () => {
    fake.mode = "error";
    expect(await failure(embed(config, ["a"], { timeoutMs: 5000 }))).toBe("status");
    fake.mode = "malformed";
    expect(await failure(embed(config, ["a"], { timeoutMs: 5000 }))).toBe("malformed");
    fake.mode = "wrong-shape";
    expect(await failure(embed(config, ["a"], { timeoutMs: 5000 }))).toBe("malformed");
    fake.mode = "ok";
    expect(await failure(embed({ ...config, url: fake.url.replace("/v1/embeddings", "/elsewhere") }, ["a"], { timeoutMs: 5000 }))).toBe("status");
  });

  it("fails with network when nothing listens and with timeout when the answer never comes", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await failure(embed({ ...config, url: `http://127.0.0.1:${port}/v1/embeddings` }, ["a"], { timeoutMs: 5000 }))).toBe("network");

    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/embeddings`;
      expect(await failure(embed({ ...config, url }, ["a"], { timeoutMs: 300 }))).toBe("timeout");
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it("refuses a zero vector", () => {
    expect(() => unitVector([0, 0, 0])).toThrow(EmbeddingsError);
  });
});
