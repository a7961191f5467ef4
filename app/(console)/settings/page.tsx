import { SettingsView } from "@/components/settings/settings-view";

export const metadata = { title: "Settings · Switchboard" };

export default function SettingsPage() {
  return <SettingsView />;
}
