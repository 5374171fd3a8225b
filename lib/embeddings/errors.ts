/** Why the embeddings service gave no vector: callers log it and carry on without one. */
export type EmbeddingsFailure = "network" | "timeout" | "status" | "malformed";

export class EmbeddingsError extends Error {
  constructor(
    readonly reason: EmbeddingsFailure,
    message: string,
  ) {
    super(message);
    this.name = "EmbeddingsError";
  }
}
