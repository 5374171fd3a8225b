import { handlers } from "@/lib/auth/session";

// GET|POST /api/auth/* — next-auth: sign-in callback, sign-out, session and CSRF token endpoints
export const { GET, POST } = handlers;
