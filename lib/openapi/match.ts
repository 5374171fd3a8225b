import { OPERATIONS, type Operation } from "./operations";

export type Match = { op: Operation; params: Record<string, string> } | { op: null; pathKnown: boolean };

type Template = { path: string; segments: string[] };

const templates: Template[] = [...new Set(OPERATIONS.map((o) => o.path))].map((path) => ({ path, segments: path.split("/").filter(Boolean) }));

const isParam = (s: string) => s.startsWith("{") && s.endsWith("}");

function matches(t: Template, parts: string[]): Record<string, string> | null {
  if (t.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = t.segments[i];
    if (isParam(seg)) params[seg.slice(1, -1)] = decodeURIComponent(parts[i]);
    else if (seg !== parts[i]) return null;
  }
  return params;
}

/** Static segments win over dynamic ones, level by level, as in the App Router (`upload_complete` beats `{token}`). */
function moreSpecific(a: Template, b: Template): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const sa = !isParam(a.segments[i]);
    const sb = !isParam(b.segments[i]);
    if (sa !== sb) return sa;
  }
  return false;
}

/** The documented operation a request reaches, by method and path (`/v1/acme/boards/Qm8x`). */
export function matchOperation(method: string, pathname: string): Match {
  const parts = pathname.split("/").filter(Boolean);
  let best: { t: Template; params: Record<string, string> } | null = null;
  for (const t of templates) {
    const params = matches(t, parts);
    if (params && (!best || moreSpecific(t, best.t))) best = { t, params };
  }
  if (!best) return { op: null, pathKnown: false };
  const { t, params } = best;
  const op = OPERATIONS.find((o) => o.path === t.path && o.method === method.toLowerCase());
  return op ? { op, params } : { op: null, pathKnown: true };
}
