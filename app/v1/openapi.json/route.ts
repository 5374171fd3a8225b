import { methods } from "@/lib/http/route";
import { serveOpenApi } from "@/lib/openapi/serve";

// GET /v1/openapi.json — the OpenAPI 3.1 document of /v1, without auth (people read it at /docs/api)
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: serveOpenApi });
