import { ShareUnavailable } from "@/components/share/share-unavailable";

export default function ShareNotFound() {
  return <ShareUnavailable status={404} message="It may have expired or been revoked, or it never existed. Ask the person who shared it for a new link." />;
}
