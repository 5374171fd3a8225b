import { SearchView } from "../../../_components/search-view";
import { requireSession } from "../../../_lib/session";

export const metadata = { title: "Search" };

export default async function SearchPage({ params, searchParams }: { params: Promise<{ slug: string }>; searchParams: Promise<{ q?: string; mode?: string }> }) {
  await requireSession();
  const [{ slug }, { q, mode }] = await Promise.all([params, searchParams]);
  const query = (q ?? "").trim();
  // The key remounts the form when the URL changes, so back/forward restore the query shown.
  return <SearchView key={`${mode}:${query}`} slug={slug} initialQuery={query} initialMode={mode === "ai" ? "ai" : "text"} />;
}
