import createFetchClient, { type Client as FetchClient } from "openapi-fetch";
import { errorFromAnswer, EaselError } from "./errors";
import type { operations, paths } from "./generated/openapi";
import { OPERATIONS, type OperationId } from "./generated/operations";
import { fetchWithRetry, type Fetch, type RetryOptions } from "./retry";

export type ClientOptions = {
  /** The server's origin, e.g. `https://easel.example.com` (paths start with /v1). */
  baseUrl: string;
  /** An API token (`easel_…`) or a board access token; sent as `Authorization: Bearer`. */
  token?: string;
  /** Retries of 5xx, 429 and network errors (see RetryOptions); `{ retries: 0 }` turns them off. */
  retry?: RetryOptions;
  /** The fetch for API calls (default: the global one). Storage requests use node:http in Node and fetch in browsers. */
  fetch?: Fetch;
};

type Op<K extends OperationId> = operations[K];
type Defined<T> = Exclude<T, undefined>;
type PathPart<K extends OperationId> = Op<K> extends { parameters: { path: infer P } } ? ([Defined<P>] extends [never] ? object : { path: P }) : object;
type QueryPart<K extends OperationId> = Op<K> extends { parameters: { query?: infer Q } } ? ([Defined<Q>] extends [never] ? object : { query?: Q }) : object;
type BodyPart<K extends OperationId> = Op<K> extends { requestBody: { content: { "application/json": infer B } } }
  ? { body: B }
  : Op<K> extends { requestBody?: { content: { "application/json": infer B } } }
    ? { body?: B }
    : object;
type Responses<K extends OperationId> = Op<K>["responses"];
type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : undefined;

/** What one operation's method takes: its path parameters, its query, its JSON body, and per-call extras. */
export type OperationInit<K extends OperationId> = PathPart<K> & QueryPart<K> & BodyPart<K> & { signal?: AbortSignal; headers?: Record<string, string> };
/** The JSON body of an operation's success answer (200 or 201; undefined for 204). */
export type OperationResult<K extends OperationId> = JsonOf<Responses<K>[Extract<keyof Responses<K>, 200 | 201 | 204>]>;

type RequiredKeys<T> = { [P in keyof T]-?: object extends Pick<T, P> ? never : P }[keyof T];
type OperationMethod<K extends OperationId> =
  RequiredKeys<OperationInit<K>> extends never ? (init?: OperationInit<K>) => Promise<OperationResult<K>> : (init: OperationInit<K>) => Promise<OperationResult<K>>;

/** A method per operation of /v1 (by operationId: `getAsset`, `prepareUpload`, …), plus `raw`, the typed openapi-fetch client. */
export type EaselClient = { [K in OperationId]: OperationMethod<K> } & {
  readonly raw: FetchClient<paths>;
  readonly options: Readonly<ClientOptions>;
  /** A fetch with the client's retries (no Authorization): storage URLs and media links carry their own signature. */
  readonly fetchWithRetry: (makeRequest: () => Request, signal?: AbortSignal) => Promise<Response>;
};

const randomKey = () => (globalThis.crypto?.randomUUID ? globalThis.crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);

export function createClient(options: ClientOptions): EaselClient {
  if (!/^https?:\/\//.test(options.baseUrl)) throw new EaselError(0, "invalid_options", `baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const plainFetch: Fetch = options.fetch ?? ((req) => globalThis.fetch(req));
  const retrying = (makeRequest: () => Request, signal?: AbortSignal) => fetchWithRetry(plainFetch, makeRequest, { ...options.retry, signal });

  const raw = createFetchClient<paths>({
    baseUrl,
    // openapi-fetch hands over one Request; each attempt sends a copy of it. A POST gets an
    // Idempotency-Key (unless the caller set one), so retrying it after a lost answer writes nothing twice.
    fetch: async (request: Request) => {
      if (request.method === "POST" && !request.headers.has("idempotency-key")) request.headers.set("idempotency-key", randomKey());
      return retrying(() => request.clone(), request.signal);
    },
    headers: options.token ? { authorization: `Bearer ${options.token}` } : undefined,
  });

  const call = async (id: OperationId, init: Record<string, unknown> = {}) => {
    const { method, path } = OPERATIONS[id];
    const { path: pathParams, query, body, signal, headers } = init as { path?: object; query?: object; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> };
    const answer = await raw.request(method as never, path as never, { params: { path: pathParams, query }, body, signal, headers } as never);
    const { response, data, error } = answer as { response: Response; data?: unknown; error?: unknown };
    if (!response.ok) throw errorFromAnswer(response.status, error);
    return data;
  };

  const client = { raw, options: { ...options }, fetchWithRetry: retrying } as Record<string, unknown>;
  for (const id of Object.keys(OPERATIONS) as OperationId[]) client[id] = (init?: Record<string, unknown>) => call(id, init);
  return client as unknown as EaselClient;
}
