"use client";

import dynamic from "next/dynamic";
import { Skeleton } from "@/app/_components/ui/empty-state";

/**
 * Uppy is loaded in the browser only, when an upload area is on screen (its dependencies declare
 * Node 22 and expect a DOM; they never run on the server).
 */
export const Uploader = dynamic(() => import("./upload-dashboard"), {
  ssr: false,
  loading: () => <Skeleton className="h-40 w-full" />,
});
