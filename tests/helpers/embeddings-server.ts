import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for an OpenAI-compatible embeddings service, answering `POST /v1/embeddings`
 * with deterministic vectors: each word is mapped to a concept (a few synonym groups stand in for
 * what a real model learns: "puppy" and "retriever" are both "dog"), and each concept adds 1 to
 * one of DIMENSIONS hashed coordinates. Texts sharing concepts get close vectors; others do not.
 */
export const DIMENSIONS = 256;

const CONCEPTS: Record<string, string> = {
  puppy: "dog", puppies: "dog", dog: "dog", dogs: "dog", retriever: "dog", hound: "dog", canine: "dog",
  kitten: "cat", cat: "cat", cats: "cat", feline: "cat",
  sand: "beach", seaside: "beach", beach: "beach", shore: "beach", coast: "beach",
  harbour: "harbour", harbor: "harbour", port: "harbour", boats: "harbour", boat: "harbour",
};
const STOP = new Set("a an the of on in at to and or our my is are with for".split(" "));

function coordinate(concept: string): number {
  return crypto.createHash("sha256").update(concept).digest().readUInt32BE(0) % DIMENSIONS;
}

/** The raw (not normalised) vector of a text, as the server computes it. */
export function fakeVector(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP.has(word)) continue;
    v[coordinate(CONCEPTS[word] ?? word)] += 1;
  }
  // A text with no words still gets a vector (a real model never answers a zero vector).
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

export type Mode = "ok" | "error" | "malformed" | "wrong-shape";

export type FakeEmbeddings = {
  url: string;
  /** Every input text received, in order. */
  inputs: string[];
  /** Requests received (whatever the mode). */
  requests: { authorization?: string; model?: string }[];
  mode: Mode;
  close: () => Promise<void>;
};

export async function startEmbeddingsServer(): Promise<FakeEmbeddings> {
  const state = { inputs: [] as string[], requests: [] as FakeEmbeddings["requests"], mode: "ok" as Mode };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const body = JSON.parse(raw) as { model?: string; input: string | string[] };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      state.requests.push({ authorization: req.headers.authorization, model: body.model });
      state.inputs.push(...inputs);
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404).end();
        return;
      }
      if (state.mode === "error") {
        res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"model crashed"}}');
        return;
      }
      if (state.mode === "malformed") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"data": [{"embedding": [0.1, 0.2');
        return;
      }
      if (state.mode === "wrong-shape") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ embedding: "not a vector" }] }));
        return;
      }
      // Answered in reverse order with their index, as the API allows: the client must reorder.
      const data = inputs.map((t, index) => ({ object: "embedding", index, embedding: fakeVector(t) })).reverse();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", model: body.model, data, usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeEmbeddings = {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    get inputs() {
      return state.inputs;
    },
    get requests() {
      return state.requests;
    },
    get mode() {
      return state.mode;
    },
    set mode(m: Mode) {
      state.mode = m;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
