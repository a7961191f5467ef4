import { SearchView } from "@/components/search/search-view";

export const metadata = { title: "Search · Switchboard" };

export default async function SearchPage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const { q } = await searchParams;
  return <SearchView initialQuery={typeof q === "string" ? q.slice(0, 500) : ""} />;
}
