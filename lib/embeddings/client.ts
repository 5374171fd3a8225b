import { z } from "zod";
import { safeFetch } from "../net/safe-fetch";
import { UrlGuardError } from "../net/url-guard";
import type { EmbeddingsConfig } from "./config";
import { EmbeddingsError } from "./errors";
import { unitVector } from "./vector";

export { EmbeddingsError, type EmbeddingsFailure } from "./errors";

/** Longest text sent, in characters: under the 8k-token context of common embedding models. */
export const MAX_INPUT_CHARS = 8000;
/** Largest vector accepted (today's models use 256 to 3072 dimensions). */
const MAX_DIMENSIONS = 8192;

/** The part of the OpenAI embeddings answer Easel reads; other fields (usage, object…) are ignored. */
const EmbeddingsAnswer = z.object({
  data: z
    .array(z.object({ embedding: z.array(z.number()).min(1).max(MAX_DIMENSIONS), index: z.number().int().min(0).optional() }))
    .min(1),
});

/**
 * Embeds `inputs` with the configured OpenAI-compatible service: one POST, `timeoutMs` for the
 * whole exchange, the answer validated and every vector returned at unit length, in input order.
 * The URL comes from the operator, not from a client, so private and loopback addresses are
 * allowed (a model server on the same host is the common case); the request still goes through
 * safe-fetch for its deadline, its body-size cap and no redirects (the API key is never sent on).
 */
export async function embed(config: EmbeddingsConfig, inputs: string[], opts: { timeoutMs: number }): Promise<number[][]> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const body = JSON.stringify({ model: config.model, input: inputs.map((t) => t.slice(0, MAX_INPUT_CHARS)) });
  let res;
  try {
    res = await safeFetch(config.url, {
      method: "POST",
      headers,
      body,
      protocols: ["http:", "https:"],
      allowPrivate: true,
      maxRedirects: 0,
      maxBytes: 16 * 1024 * 1024,
      timeoutMs: opts.timeoutMs,
    });
  } catch (err) {
    if (err instanceof UrlGuardError) throw new EmbeddingsError(err.reason === "timeout" ? "timeout" : "network", err.message);
    throw err;
  }
  if (res.status !== 200) throw new EmbeddingsError("status", `The embeddings service answered HTTP ${res.status}`);
  let json: unknown;
  try {
    json = JSON.parse(res.body.toString("utf8"));
  } catch {
    throw new EmbeddingsError("malformed", "The embeddings service answered something other than JSON");
  }
  const parsed = EmbeddingsAnswer.safeParse(json);
  if (!parsed.success) throw new EmbeddingsError("malformed", "The embeddings service's answer has no usable `data[].embedding`");
  const items = parsed.data.data;
  if (items.length !== inputs.length) throw new EmbeddingsError("malformed", `The embeddings service answered ${items.length} vectors for ${inputs.length} inputs`);
  const ordered = items.every((d) => d.index !== undefined) ? [...items].sort((a, b) => a.index! - b.index!) : items;
  if (new Set(ordered.map((d) => d.embedding.length)).size !== 1) throw new EmbeddingsError("malformed", "The embeddings service answered vectors of different lengths");
  return ordered.map((d) => unitVector(d.embedding));
}
