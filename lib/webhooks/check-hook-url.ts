import { DomainError } from "../errors";
import { checkUrl, resolveTarget, UrlGuardError, type UrlPolicy } from "../net/url-guard";
import { hookUrlPolicy } from "./policy";

function refused(err: unknown): never {
  if (err instanceof UrlGuardError) throw new DomainError("invalid_hook_url", `hook_url is not allowed: ${err.message}`, { field: "hook_url", reason: err.reason });
  throw err;
}

/** The checks that need no network (scheme, credentials, literal private addresses): run before any lookup. */
export function checkHookUrlSyntax(input: string, policy: UrlPolicy = hookUrlPolicy()): URL {
  try {
    return checkUrl(input, policy);
  } catch (err) {
    refused(err);
  }
}

/**
 * A hook URL a trigger may keep: http(s), no credentials, and every address its host resolves
 * to public (unless EASEL_WEBHOOK_ALLOW_PRIVATE). A name that does not resolve is refused too: it
 * can only be checked once it does. Deliveries check again (deliver.ts), so a later DNS change
 * toward a private address is refused then.
 */
export async function assertHookUrl(input: string, policy: UrlPolicy = hookUrlPolicy()): Promise<string> {
  const url = checkHookUrlSyntax(input, policy);
  try {
    await resolveTarget(url, policy);
  } catch (err) {
    refused(err);
  }
  return url.href;
}
