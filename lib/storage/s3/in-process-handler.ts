import { Readable } from "node:stream";
import type { S3ClientConfig } from "@aws-sdk/client-s3";

/** How the embedded store answers one request (lib/objectstore/s3/handler.ts with its context). */
export type ServeStoreRequest = (req: Request) => Promise<Response>;

type RequestHandler = Extract<NonNullable<S3ClientConfig["requestHandler"]>, { handle: unknown }>;
type SdkRequest = Parameters<RequestHandler["handle"]>[0];
type SdkOptions = Parameters<RequestHandler["handle"]>[1];
type SdkBody = unknown;

/**
 * An AWS SDK request handler that hands each signed request to the embedded store's handler in
 * this process, as the SDK's own HTTP handler would send it over the network: same method, path,
 * query and headers, the body streamed both ways. The store still verifies the signature; only the
 * socket, the loopback round trip and the public origin are gone. Presigned URLs are unaffected:
 * they are signed for the endpoint and used by clients over HTTP.
 */
export function inProcessRequestHandler(serve: ServeStoreRequest): RequestHandler {
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request: SdkRequest, options?: SdkOptions) {
      const signal = toAbortSignal(options?.abortSignal);
      signal?.throwIfAborted();
      const body = bodyOf(request.method, request.body as SdkBody);
      const pending = serve(
        new Request(urlOf(request), {
          method: request.method,
          headers: headersOf(request.headers),
          // On abort the body the store is reading errors, so it drops what it received so far.
          body: signal && body instanceof ReadableStream ? body.pipeThrough(new TransformStream(), { signal }) : body,
          duplex: "half",
        } as RequestInit),
      );
      const res = signal ? await abortable(pending, signal) : await pending;
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name] = value));
      const stream = res.body ? Readable.fromWeb(res.body as import("node:stream/web").ReadableStream) : Readable.from([]);
      signal?.addEventListener("abort", () => stream.destroy(abortError()), { once: true });
      return { response: { statusCode: res.status, reason: res.statusText, headers, body: stream } as Awaited<ReturnType<RequestHandler["handle"]>>["response"] };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  } as RequestHandler;
}

function urlOf(request: SdkRequest): string {
  const port = request.port ? `:${request.port}` : "";
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(request.query ?? {}) as [string, string | string[] | null][]) {
    if (value === null) pairs.push(uriEscape(name));
    else for (const v of Array.isArray(value) ? value : [value]) pairs.push(`${uriEscape(name)}=${uriEscape(v)}`);
  }
  return `${request.protocol}//${request.hostname}${port}${request.path}${pairs.length ? `?${pairs.join("&")}` : ""}`;
}

/** RFC 3986 escaping, as the SDK's HTTP handler writes a query (everything but A-Z a-z 0-9 - _ . ~). */
const uriEscape = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function headersOf(sdkHeaders: Record<string, string>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(sdkHeaders)) headers.set(name, value);
  return headers;
}

function bodyOf(method: string, body: SdkBody): BodyInit | null {
  if (body === undefined || body === null || method === "GET" || method === "HEAD") return null;
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer || body instanceof Blob) return body as BodyInit;
  if (body instanceof ReadableStream) return body;
  if (body instanceof Readable) return Readable.toWeb(body) as ReadableStream<Uint8Array>;
  throw new TypeError(`in-process S3 request: unsupported body type ${Object.prototype.toString.call(body)}`);
}

/** The SDK's abort signal may be its own AbortSignal-like object rather than the platform's. */
function toAbortSignal(signal: unknown): AbortSignal | undefined {
  if (!signal) return undefined;
  if (signal instanceof AbortSignal) return signal;
  const like = signal as { aborted?: boolean; onabort?: (() => void) | null };
  const controller = new AbortController();
  if (like.aborted) controller.abort();
  else like.onabort = () => controller.abort();
  return controller.signal;
}

const abortError = () => Object.assign(new Error("Request aborted"), { name: "AbortError" });

/** The store's answer, or an AbortError as soon as the caller aborts (the SDK's handlers do the same). */
function abortable<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
