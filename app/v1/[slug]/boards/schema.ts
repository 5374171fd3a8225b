// The request schemas live with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { BoardAssetsQuery, BoardListQuery, CreateBoardBody, UpdateBoardBody } from "@/lib/openapi/schemas/boards";
