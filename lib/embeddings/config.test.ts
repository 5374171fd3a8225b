import { afterEach, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "../env";
import { embeddingsConfig } from "./config";

const KEYS = ["EASEL_EMBEDDINGS_URL", "EASEL_EMBEDDINGS_MODEL", "EASEL_EMBEDDINGS_API_KEY", "EASEL_EMBEDDINGS_MIN_SIMILARITY"] as const;
const set = (vars: Partial<Record<(typeof KEYS)[number], string>>) => {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, vars);
  resetEnvCache();
};
afterEach(() => set({}));

describe("embeddingsConfig", () => {
  it("is off unless a URL is set", () => {
    set({ EASEL_EMBEDDINGS_MODEL: "m", EASEL_EMBEDDINGS_API_KEY: "k" });
    expect(embeddingsConfig()).toBeNull();
  });

  it("reads the service, the model, the key and the similarity floor (default 0.3)", () => {
    set({ EASEL_EMBEDDINGS_URL: "http://127.0.0.1:11434/v1/embeddings", EASEL_EMBEDDINGS_MODEL: "nomic-embed-text" });
    expect(embeddingsConfig()).toEqual({ url: "http://127.0.0.1:11434/v1/embeddings", model: "nomic-embed-text", apiKey: undefined, minSimilarity: 0.3 });
    set({ EASEL_EMBEDDINGS_URL: "https://api.example.com/v1/embeddings", EASEL_EMBEDDINGS_MODEL: "m", EASEL_EMBEDDINGS_API_KEY: "sk-1", EASEL_EMBEDDINGS_MIN_SIMILARITY: "0.55" });
    expect(embeddingsConfig()).toMatchObject({ apiKey: "sk-1", minSimilarity: 0.55 });
  });

  it("refuses a URL without a model, another scheme, and a floor outside -1..1", () => {
    set({ EASEL_EMBEDDINGS_URL: "http://127.0.0.1:1/v1/embeddings" });
    expect(() => env()).toThrow(/EASEL_EMBEDDINGS_MODEL is required/);
    set({ EASEL_EMBEDDINGS_URL: "ftp://example.com/embeddings", EASEL_EMBEDDINGS_MODEL: "m" });
    expect(() => env()).toThrow(/EASEL_EMBEDDINGS_URL/);
    set({ EASEL_EMBEDDINGS_URL: "http://127.0.0.1:1/v1/embeddings", EASEL_EMBEDDINGS_MODEL: "m", EASEL_EMBEDDINGS_MIN_SIMILARITY: "2" });
    expect(() => env()).toThrow(/EASEL_EMBEDDINGS_MIN_SIMILARITY/);
  });
});
