export { createBoard } from "./create-board";
export { getBoardOrThrow } from "./get-board-or-throw";
export { listBoards, listChildren } from "./list-boards";
export { updateBoard, type BoardChanges } from "./update-board";
export { toBoardJson, type BoardJson } from "./present";
export { visibleBoardIds } from "./scope";
export { subtreeIds, ancestorIds, findBoard } from "./queries";
