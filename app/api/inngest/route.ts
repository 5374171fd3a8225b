import { serveJobs } from "@/lib/jobs/serve";

// GET|POST|PUT /api/inngest — the Inngest serve endpoint: introspection, calls and in-band sync.
// Signed requests only (cloud mode, no unauthenticated sync), from an Inngest server.
export const { GET, POST, PUT } = serveJobs();

export const dynamic = "force-dynamic";
