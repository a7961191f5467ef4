import { CompareBoard } from "@/components/compare/compare-board";

export const metadata = { title: "Comparison · Switchboard" };

export default async function ComparisonPage({ params }: { params: Promise<{ compareId: string }> }) {
  const { compareId } = await params;
  return <CompareBoard id={compareId} />;
}
