import { createAssetVersionTool } from "./create-asset-version";
import { editAssetVersionCommentTool } from "./edit-asset-version-comment";
import { getAssetTool } from "./get-asset";
import { listAssetVersionsTool } from "./list-asset-versions";
import { retryVideoProcessingTool } from "./retry-video-processing";
import { revertAssetTool } from "./revert-asset";
import type { ToolDef } from "./tool";

/** Every assistant tool, in the order tools/list shows them (the caller's scopes filter it). */
export const TOOLS: ToolDef[] = [listAssetVersionsTool, getAssetTool, revertAssetTool, editAssetVersionCommentTool, createAssetVersionTool, retryVideoProcessingTool];
