import { serve } from "inngest/next";
import { inngest } from "@/lib/jobs/client";
import { functions } from "@/lib/jobs/functions";
import { withSigningKey } from "@/lib/jobs/serve";

// GET|POST|PUT /api/inngest — the Inngest serve endpoint: introspection, calls and in-band sync.
// Signed requests only (cloud mode, no unauthenticated sync), from Inngest or the embedded executor.
export const { GET, POST, PUT } = withSigningKey(serve({ client: inngest, functions, enableUnauthedSync: false }));

export const dynamic = "force-dynamic";
