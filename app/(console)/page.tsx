import { HomeView } from "@/components/shell/home-view";

export default function Home() {
  return <HomeView />;
}
