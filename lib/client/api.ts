import type {
  AiSearchPage, ApiToken, Asset, AssetWrite, Board, BoardState, CreatedTrigger, Delivery, IssuedApiToken, One, Page, Plan, PreparedUpload, Resend,
  Scope, StorageKind, Trigger, VersionList, Workspace, HookKind,
} from "./types";

/**
 * The one place the browser calls the server. Every error comes back as ApiClientError with the
 * API's `extensions.code`, so components branch on codes, never on messages or statuses.
 */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiClientError";
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;
type RequestOptions = { method?: string; query?: Query; body?: unknown; signal?: AbortSignal };

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function errorOf(res: Response): Promise<ApiClientError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const first = (body as { errors?: { message?: string; extensions?: Record<string, unknown> }[] } | null)?.errors?.[0];
  const code = typeof first?.extensions?.code === "string" ? first.extensions.code : `http_${res.status}`;
  return new ApiClientError(res.status, code, first?.message ?? res.statusText, first?.extensions ?? {});
}

/** Same-origin request with the session cookie (the browser adds Origin and Sec-Fetch-Site, which the CSRF guard checks). */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const init: RequestInit = { method: opts.method ?? "GET", signal: opts.signal, credentials: "same-origin", headers: { accept: "application/json" } };
  if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    init.headers = { ...init.headers, "content-type": "application/json" };
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), init);
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiClientError(0, "network_error", "The server could not be reached");
  }
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

const v1 = (slug: string) => `/v1/${encodeURIComponent(slug)}`;
const enc = encodeURIComponent;
type PageQuery = { page?: number; per_page?: number };

/** /v1 as the UI uses it: same routes and shapes as any API client (contract §3–§7). */
export const api = {
  boards: {
    list: (slug: string, q: PageQuery = {}) => request<Page<Board>>(`${v1(slug)}/boards`, { query: q }),
    get: (slug: string, token: string) => request<One<Board>>(`${v1(slug)}/boards/${enc(token)}`),
    children: (slug: string, token: string, q: PageQuery = {}) => request<Page<Board>>(`${v1(slug)}/boards/${enc(token)}/children`, { query: q }),
    assets: (slug: string, token: string, q: PageQuery & { nested_assets?: boolean; query?: string } = {}) =>
      request<Page<Asset>>(`${v1(slug)}/boards/${enc(token)}/assets`, { query: q }),
    create: (slug: string, board: { title: string; parent_token?: string | null }) => request<One<Board>>(`${v1(slug)}/boards`, { method: "POST", body: { board } }),
    update: (slug: string, token: string, board: { title?: string; state?: BoardState; parent_token?: string | null }) =>
      request<One<Board>>(`${v1(slug)}/boards/${enc(token)}`, { method: "PATCH", body: { board } }),
  },
  assets: {
    list: (slug: string, q: PageQuery & { query?: string } = {}) => request<Page<Asset>>(`${v1(slug)}/assets`, { query: q }),
    search: (slug: string, q: PageQuery & { query: string }) => request<Page<Asset>>(`${v1(slug)}/search`, { query: q }),
    aiSearch: (slug: string, q: PageQuery & { query: string }) => request<AiSearchPage>(`${v1(slug)}/ai_search`, { query: q }),
    get: (slug: string, token: string) => request<One<Asset>>(`${v1(slug)}/assets/${enc(token)}`),
    update: (slug: string, token: string, asset: Record<string, unknown>) => request<AssetWrite>(`${v1(slug)}/assets/${enc(token)}`, { method: "PATCH", body: { asset } }),
    remove: (slug: string, token: string) => request<void>(`${v1(slug)}/assets/${enc(token)}`, { method: "DELETE" }),
    versions: (slug: string, token: string, q: PageQuery = {}) => request<VersionList>(`${v1(slug)}/assets/${enc(token)}/versions`, { query: q }),
    revert: (slug: string, token: string, body: { version_number: number; comment?: string }) =>
      request<AssetWrite>(`${v1(slug)}/assets/${enc(token)}/revert`, { method: "POST", body }),
    retryVideo: (slug: string, token: string) => request<One<Asset>>(`${v1(slug)}/assets/${enc(token)}/retry_video_processing`, { method: "POST" }),
    prepareUpload: (slug: string, asset: { title?: string; media_type: string; size: number; collection_token?: string }) =>
      request<One<PreparedUpload>>(`${v1(slug)}/assets/upload_prepare`, { method: "POST", body: { asset } }),
    completeUpload: (slug: string, asset: { signed_storage_id: string; multipart_upload_id?: string; title?: string; collection_token?: string }) =>
      request<One<Asset>>(`${v1(slug)}/assets/upload_complete`, { method: "POST", body: { asset } }),
  },
  triggers: {
    list: (slug: string) => request<{ data: Trigger[] }>(`/v1/trigger`, { query: { organization_slug: slug } }),
    create: (body: { hook: HookKind; hook_url: string; organization_slug: string; collection_token: string }) => request<CreatedTrigger>(`/v1/trigger`, { method: "POST", body }),
    remove: (id: string) => request<void>(`/v1/trigger/${enc(id)}`, { method: "DELETE" }),
    renew: (id: string) => request<Trigger>(`/v1/trigger/${enc(id)}/renew`, { method: "POST" }),
    deliveries: (id: string) => request<Page<Delivery>>(`/v1/trigger/${enc(id)}/deliveries`),
    resend: (id: string, deliveryId: number) => request<Resend>(`/v1/trigger/${enc(id)}/deliveries/${enc(String(deliveryId))}/resend`, { method: "POST" }),
  },
  /** The web UI's own admin routes (/api/admin): what /v1 has no route for. */
  admin: {
    workspaces: () => request<{ data: Workspace[] }>(`/api/admin/workspaces`),
    workspace: (slug: string) => request<One<Workspace>>(`/api/admin/workspaces/${enc(slug)}`),
    createWorkspace: (workspace: { slug: string; name?: string; plan?: Plan; trial_of?: Plan; storage_kind?: StorageKind }) =>
      request<One<Workspace>>(`/api/admin/workspaces`, { method: "POST", body: { workspace } }),
    updateWorkspace: (slug: string, workspace: { plan?: Plan; trial_of?: Plan | null; streaming_enabled?: boolean }) =>
      request<One<Workspace>>(`/api/admin/workspaces/${enc(slug)}`, { method: "PATCH", body: { workspace } }),
    tokens: (slug: string) => request<{ data: ApiToken[] }>(`/api/admin/workspaces/${enc(slug)}/tokens`),
    createToken: (slug: string, token: { name: string; scopes: Scope[]; webhooks: boolean }) =>
      request<One<IssuedApiToken>>(`/api/admin/workspaces/${enc(slug)}/tokens`, { method: "POST", body: { token } }),
    revokeToken: (slug: string, id: number) => request<One<ApiToken>>(`/api/admin/workspaces/${enc(slug)}/tokens/${id}`, { method: "DELETE" }),
  },
};
