import { unknownRoute } from "@/lib/http/route";

// Any path under /v1 that matches no route: 404 route_not_found in the error envelope.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = unknownRoute();
