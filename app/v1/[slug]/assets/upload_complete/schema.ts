// The request schema lives with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { CompleteBody } from "@/lib/openapi/schemas/uploads";
