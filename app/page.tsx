import { redirect } from "next/navigation";

// The web UI starts at the board browser; signed-out visitors are sent on to sign in from there.
export default function Home() {
  redirect("/boards");
}
