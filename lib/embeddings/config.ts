import { env } from "../env";

export type EmbeddingsConfig = {
  /** The OpenAI-compatible endpoint itself (`…/v1/embeddings`): Easel POSTs `{model, input}` to it. */
  url: string;
  model: string;
  apiKey?: string;
  /** Below this cosine similarity, an asset the full text did not match is left out of ai_search. */
  minSimilarity: number;
};

/** The configured embeddings service, or null when EASEL_EMBEDDINGS_URL is unset: then nothing is ever called. */
export function embeddingsConfig(): EmbeddingsConfig | null {
  const e = env();
  if (!e.EASEL_EMBEDDINGS_URL || !e.EASEL_EMBEDDINGS_MODEL) return null;
  return { url: e.EASEL_EMBEDDINGS_URL, model: e.EASEL_EMBEDDINGS_MODEL, apiKey: e.EASEL_EMBEDDINGS_API_KEY, minSimilarity: e.EASEL_EMBEDDINGS_MIN_SIMILARITY };
}
