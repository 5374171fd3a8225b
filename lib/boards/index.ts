export { createBoard } from "./create-board";
export { getBoardOrThrow } from "./get-board-or-throw";
export { listBoards, listChildren } from "./list-boards";
export { updateBoard } from "./update-board";
export { toBoardJson } from "./present";
export { boardRowInScope, subtreeScope, type BoardScope } from "./scope";
export { assetVisibleTo, canSee, visibleScope, workspaceVisibleTo } from "./visibility";
export { findBoard, withAncestors } from "./queries";
export { MAX_BOARD_DEPTH, ancestorIdsOf, isWithin } from "./tree";
