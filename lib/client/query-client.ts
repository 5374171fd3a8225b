import { MutationCache, QueryCache, QueryClient, isServer } from "@tanstack/react-query";
import { ApiClientError } from "./api";

/** 4xx answers are decisions, not glitches: retrying them only delays the message (and a 401 means "sign in"). */
function retry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiClientError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

/** A 401 in the browser means the session ended (expired, signed out elsewhere, user removed): sign in again and come back. */
function signInAgain(error: unknown) {
  if (isServer || !(error instanceof ApiClientError) || error.status !== 401) return;
  const next = window.location.pathname + window.location.search;
  window.location.assign(`/login?next=${encodeURIComponent(next)}`);
}

export function makeQueryClient() {
  return new QueryClient({
    queryCache: new QueryCache({ onError: signInAgain }),
    mutationCache: new MutationCache({ onError: signInAgain }),
    defaultOptions: {
      queries: { staleTime: 30_000, retry, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

let browserClient: QueryClient | undefined;

/** One client per browser tab; a fresh one per server render, so requests never share cached data. */
export function getQueryClient() {
  if (isServer) return makeQueryClient();
  browserClient ??= makeQueryClient();
  return browserClient;
}
