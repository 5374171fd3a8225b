import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { queryRows, type DbOrTx, type Tx } from "../db";
import { boards, type Board } from "../db/schema";
import { DomainError } from "../errors";

/**
 * The board tree's one owner. Every board stores its materialised path: `ancestry` holds the ids
 * of all its ancestors root first ("/1/5/9/", "/" at top level) and `depth` their number. Creating
 * and moving boards go through here, so the paths stay true; archiving and trashing change a
 * board's state, never its place, and deleting a workspace deletes its whole tree at once.
 */

/** Boards nest at most this many levels (contract §12): a top-level board has depth 0, the deepest 49. */
export const MAX_BOARD_DEPTH = 50;

export type TreeNode = Pick<Board, "id" | "workspaceId" | "ancestry" | "depth">;

/** The ancestry every child of `board` has: its own ancestry followed by its id. */
export function pathOf(board: Pick<Board, "id" | "ancestry">): string {
  return `${board.ancestry}${board.id}/`;
}

/** A board's ancestors, root first, read from its ancestry (no query). */
export function ancestorIdsOf(board: Pick<Board, "ancestry">): number[] {
  return board.ancestry
    .split("/")
    .filter((part) => part !== "")
    .map(Number);
}

/** Is `board` the board `root` itself or one of its descendants? */
export function isWithin(board: Pick<Board, "id" | "workspaceId" | "ancestry">, root: Pick<Board, "id" | "workspaceId" | "ancestry">): boolean {
  return board.workspaceId === root.workspaceId && (board.id === root.id || board.ancestry.startsWith(pathOf(root)));
}

/**
 * `ancestry` starts with the path `from` (the path itself as SQL) and so lies strictly under that
 * board. Written as a byte range rather than LIKE: paths hold only digits and "/", and "0" follows
 * "/" in ASCII, so every string starting with "/1/5/" sorts in ["/1/5/", "/1/50"). The
 * text_pattern_ops operators (~>=~, ~<~) compare bytes and are what the index (workspace_id,
 * ancestry text_pattern_ops) serves, also when the prefix comes from a subquery or from a
 * prepared statement's parameter. PostgreSQL rewrites LIKE 'prefix%' into this same range only
 * when the pattern is a constant at planning time; under a named statement's generic plan or a
 * join it filters every board of the workspace instead. No LIKE also means no pattern characters
 * to escape (the paths could not hold any anyway).
 */
function underPath(ancestry: SQL, from: SQL, upTo: SQL): SQL {
  return sql`(${ancestry} ~>=~ ${from} and ${ancestry} ~<~ ${upTo})`;
}

/** The `boards` table or an alias of it in the query being built. */
export type BoardsRef = { id: AnyColumn; workspaceId: AnyColumn; ancestry: AnyColumn };

/**
 * SQL: the board `d` is the board named `rootToken` in the workspace or lies under it. The root is
 * read by scalar subqueries, which run once per statement, so each row of `d` costs one comparison
 * of its path: the work follows the rows the enclosing query visits, never the size of the subtree.
 */
export function inSubtreeNamed(d: BoardsRef, workspaceId: number, rootToken: string): SQL {
  const rootRow = (column: SQL) => sql`(select ${column} from ${boards} where ${boards.workspaceId} = ${workspaceId} and ${boards.token} = ${rootToken})`;
  const under = underPath(sql`${d.ancestry}`, rootRow(sql`${boards.ancestry} || ${boards.id} || '/'`), rootRow(sql`${boards.ancestry} || ${boards.id} || '0'`));
  return sql`(${d.workspaceId} = ${workspaceId} and (${d.id} = ${rootRow(sql`${boards.id}`)} or ${under}))`;
}

/** SQL: the board `d` is `root` (a row read earlier) or lies under it. */
export function inSubtreeOfRow(d: BoardsRef, root: TreeNode): SQL {
  const path = pathOf(root);
  const under = underPath(sql`${d.ancestry}`, sql`${path}::text`, sql`${`${path.slice(0, -1)}0`}::text`);
  return sql`(${d.workspaceId} = ${root.workspaceId} and (${d.id} = ${root.id} or ${under}))`;
}

const fieldError = (message: string) => new DomainError("validation_failed", message, { field: "parent_token" });

function tooDeep(): DomainError {
  return fieldError(`Boards nest at most ${MAX_BOARD_DEPTH} levels`);
}

/**
 * Serialises changes to one workspace's tree (a move against a move, a create under a board being
 * moved): the two-key form keeps these locks apart from the single-key advisory locks elsewhere.
 * Held until the transaction ends. On PGlite it excludes nothing, as its transactions already run alone.
 */
const TREE_LOCK_CLASS = 7_150_250;
export async function lockTree(tx: Tx, workspaceId: number): Promise<void> {
  // A session lost with the lock held keeps it until the server notices the dead connection: the
  // wait is bounded, and its timeout (55P03) answers 503 database_unavailable (lib/db/unavailable.ts).
  await tx.execute(sql`set local lock_timeout = '5s'`);
  await tx.execute(sql`select pg_advisory_xact_lock(${TREE_LOCK_CLASS}::int, ${workspaceId}::int)`);
}

/** Where a new board goes under `parent` (null: top level); 422 when it would nest too deep. */
export function placeUnder(parent: TreeNode | null): { parentId: number | null; ancestry: string; depth: number } {
  if (!parent) return { parentId: null, ancestry: "/", depth: 0 };
  if (parent.depth + 1 >= MAX_BOARD_DEPTH) throw tooDeep();
  return { parentId: parent.id, ancestry: pathOf(parent), depth: parent.depth + 1 };
}

/** The greatest depth within a board's subtree (the board included): one indexed range. */
async function deepestIn(db: DbOrTx, root: TreeNode): Promise<number> {
  const [row] = await queryRows<{ deepest: number | null }>(
    db,
    sql`select max(${boards.depth}) as deepest from ${boards} where ${inSubtreeOfRow(boards, root)}`,
  );
  return Number(row?.deepest ?? root.depth);
}

/**
 * Moves `board` and everything under it beneath `parent` (null: top level). The caller holds
 * lockTree in `tx` and read both rows after taking it. Refused with 422 on parent_token: a move
 * under the board itself or one of its descendants (a cycle), and a move after which any board of
 * the subtree would nest deeper than the limit. One UPDATE rewrites the parent link of the board
 * and the ancestry and depth of the whole subtree, so no reader sees half a move.
 */
export async function moveSubtree(tx: Tx, board: Board, parent: Board | null): Promise<void> {
  if ((parent?.id ?? null) === board.parentId) return;
  if (parent && isWithin(parent, board)) throw fieldError("A board cannot be moved under itself or one of its sub-boards");
  const ancestry = parent ? pathOf(parent) : "/";
  const shift = (parent ? parent.depth + 1 : 0) - board.depth;
  if ((await deepestIn(tx, board)) + shift >= MAX_BOARD_DEPTH) throw tooDeep();
  await tx
    .update(boards)
    .set({
      ancestry: sql`${ancestry}::text || substr(${boards.ancestry}, ${board.ancestry.length + 1}::int)`,
      depth: sql`${boards.depth} + ${shift}::int`,
      parentId: sql`case when ${boards.id} = ${board.id}::int then ${parent?.id ?? null}::int else ${boards.parentId} end`,
    })
    .where(inSubtreeOfRow(boards, board));
}
