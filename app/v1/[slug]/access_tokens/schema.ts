// The request schema lives with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { CreateAccessTokenBody } from "@/lib/openapi/schemas/access-tokens";
