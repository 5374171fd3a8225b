import crypto from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";

/**
 * Claims of a board access token. It stands alone: revoking the API token that minted it does not
 * revoke it. `userId` is set on tokens a page mints for the signed-in person (the player, bulk
 * downloads): those hold only while that person may still read the workspace.
 */
export type BoardTokenClaims = { jti: string; workspaceId: number; boardToken: string; expiresAt: Date; userId?: number };

const ISSUER = "easel";
const AUDIENCE = "easel:board";

const keyBytes = (secret: string) => new TextEncoder().encode(secret);

export async function signBoardToken(secret: string, input: { workspaceId: number; boardToken: string; now: Date; expiresInSeconds: number; userId?: number }) {
  const jti = crypto.randomUUID();
  const iat = Math.floor(input.now.getTime() / 1000);
  const exp = iat + input.expiresInSeconds;
  const token = await new SignJWT({ ws: input.workspaceId, board: input.boardToken, ...(input.userId === undefined ? {} : { uid: input.userId }) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(keyBytes(secret));
  return { token, jti, expiresAt: new Date(exp * 1000) };
}

export type VerifyResult = { ok: true; claims: BoardTokenClaims } | { ok: false; reason: "expired" | "invalid" };

/** Verifies signature (HS256 only: `alg: none` and others are refused), audience and expiry against Easel's clock. */
export async function verifyBoardToken(secret: string, token: string, now: Date): Promise<VerifyResult> {
  try {
    const { payload } = await jwtVerify(token, keyBytes(secret), {
      algorithms: ["HS256"],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      clockTolerance: 0,
      requiredClaims: ["exp", "jti"],
    });
    if (typeof payload.ws !== "number" || typeof payload.board !== "string" || typeof payload.exp !== "number") {
      return { ok: false, reason: "invalid" };
    }
    if (payload.uid !== undefined && !Number.isSafeInteger(payload.uid)) return { ok: false, reason: "invalid" };
    const claims: BoardTokenClaims = { jti: String(payload.jti), workspaceId: payload.ws, boardToken: payload.board, expiresAt: new Date(payload.exp * 1000) };
    if (typeof payload.uid === "number") claims.userId = payload.uid;
    return { ok: true, claims };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: "expired" };
    return { ok: false, reason: "invalid" };
  }
}

export const looksLikeJwt = (raw: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(raw);
