import { notFound } from "next/navigation";
import { Gallery } from "./gallery";

export const dynamic = "force-dynamic";
export const metadata = { title: "Gallery · Switchboard" };

/** Dev-only: every timeline block and tool state from fixture data. */
export default function GalleryPage() {
  if (process.env.SWITCHBOARD_DEV_GALLERY !== "1" && process.env.NODE_ENV === "production") notFound();
  return <Gallery />;
}
