"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { LiveUpdates } from "@/lib/client/live-updates";
import { getQueryClient } from "@/lib/client/query-client";

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={getQueryClient()}>
      <LiveUpdates />
      {children}
    </QueryClientProvider>
  );
}
