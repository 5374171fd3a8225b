"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Re-renders the server page it sits on every `intervalMs` while the tab is visible. For the job
 * runs pages: runs are instance-wide, not a workspace's, and under webhook load they change
 * thousands of times a second, so they do not ride the workspace live stream (a notification per
 * run transition would cost every run a statement); the open page refreshes itself instead.
 */
export function RefreshWhileVisible({ intervalMs = 2_000 }: { intervalMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    const tick = () => {
      if (document.visibilityState === "visible") router.refresh();
    };
    const timer = setInterval(tick, intervalMs);
    document.addEventListener("visibilitychange", tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", tick);
    };
  }, [router, intervalMs]);
  return null;
}
