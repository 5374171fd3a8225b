// The request schemas live with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { AssetListQuery, SearchQuery } from "@/lib/openapi/schemas/assets";
