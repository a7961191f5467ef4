import { CompareStart } from "@/components/compare/compare-start";

export const metadata = { title: "Compare · Switchboard" };

export default function ComparePage() {
  return <CompareStart />;
}
