// The request schemas live with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { PatchAssetBody, precheckPatchAsset, precheckPatchAssetText, RevertBody, VERSION_FIELD_CODES, versionNumber } from "@/lib/openapi/schemas/assets";
