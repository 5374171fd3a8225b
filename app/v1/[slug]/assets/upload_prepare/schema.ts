// The request schema lives with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { PrepareBody } from "@/lib/openapi/schemas/uploads";
