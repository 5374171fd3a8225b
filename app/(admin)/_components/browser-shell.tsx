import type { ReactNode } from "react";

/** Board browser layout: the tree beside the content, stacked on narrow screens. */
export function BrowserShell({ tree, children }: { tree: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-6 lg:grid-cols-[16rem_1fr]">
      <aside className="lg:sticky lg:top-4 lg:max-h-[calc(100vh-2rem)] lg:self-start lg:overflow-y-auto">{tree}</aside>
      <main className="min-w-0">{children}</main>
    </div>
  );
}
