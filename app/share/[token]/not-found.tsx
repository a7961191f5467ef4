import { ShareGoneView } from "./gone-reason";

/** Expired, revoked or unknown links (HTTP 404); the layout says which. */
export default function ShareNotFound() {
  return <ShareGoneView />;
}
