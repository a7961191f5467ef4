import type { Metadata } from "next";
import { SharesSettings } from "@/components/share/shares-settings";

export const metadata: Metadata = { title: "Shares · Switchboard" };

export default function SharesSettingsPage() {
  return <SharesSettings />;
}
