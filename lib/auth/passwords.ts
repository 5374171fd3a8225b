import crypto from "node:crypto";
import os from "node:os";
import { promisify } from "node:util";
import bcrypt from "bcryptjs";
import pLimit, { type LimitFunction } from "p-limit";

/**
 * Password hashing for web UI users (contract §12: hashing runs off the main thread).
 *
 * New hashes are scrypt through Node's asynchronous `crypto.scrypt`, which runs on libuv's thread
 * pool, stored as a PHC string: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64 without padding).
 * The parameters travel with each hash, so raising them later needs no migration: a hash made
 * with other parameters still verifies and reports `rehash`, and sign-in stores a new one.
 *
 * N = 2^15, r = 8, p = 1 (32 MiB per hash) takes ~125 ms on this project's 2-core machines
 * (2^14: ~60 ms, 2^16: ~260 ms, 2^17: ~540 ms). That is the cost of the bcrypt (cost 10) hashes it
 * replaces, with scrypt's memory hardness on top, and keeps a sign-in interactive when several
 * queue behind one another (see HASHING_CONCURRENCY).
 */
export const SCRYPT_PARAMS = Object.freeze({ logN: 15, r: 8, p: 1 });
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** Stored hashes come from our own database, but a corrupt one must not allocate gigabytes. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;

/**
 * How many hashes run at once in this process. Each occupies a core and a thread of libuv's pool
 * (4 threads unless UV_THREADPOOL_SIZE says otherwise) for the whole hash, and that pool also
 * serves file system, DNS and zlib work. So: at most one core fewer than the machine has (the
 * event loop keeps one for serving requests) and two pool threads fewer than the pool has. On two
 * cores that is one at a time: 16 sign-ins at once queue for ~2 s while another tenant's API
 * calls keep their latency (tests/security/sign-in.test.ts).
 */
export const HASHING_CONCURRENCY = Math.max(1, Math.min(os.availableParallelism() - 1, threadPoolSize() - 2));

function threadPoolSize(): number {
  const configured = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(configured) && configured > 0 ? configured : 4;
}

// One queue per process, even when Next.js loads this module more than once.
const hashing: LimitFunction = ((globalThis as { __easelPasswordHashing?: LimitFunction }).__easelPasswordHashing ??= pLimit(HASHING_CONCURRENCY));

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

export class MalformedPasswordHashError extends Error {
  constructor(reason: string) {
    super(`stored password hash is malformed: ${reason}`);
  }
}

export type PasswordCheck = { match: boolean; rehash: boolean };

type ScryptHash = { logN: number; r: number; p: number; salt: Buffer; hash: Buffer };

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const hash = await derive(password, { ...SCRYPT_PARAMS, salt, hash: Buffer.alloc(KEY_BYTES) });
  return encode({ ...SCRYPT_PARAMS, salt, hash });
}

/**
 * Checks a password against a stored hash, in constant time for scrypt hashes. Legacy bcrypt
 * hashes (`$2a$`, `$2b$`, made before scrypt) still verify and always ask for a rehash.
 * Throws MalformedPasswordHashError for anything else.
 */
export async function verifyPassword(password: string, stored: string): Promise<PasswordCheck> {
  if (/^\$2[ab]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(stored)) {
    // bcryptjs is JavaScript: its async compare runs on the event loop in slices of up to 100 ms.
    // Only users who have not signed in since scrypt arrived still have one (docs/security.md).
    const match = await hashing(() => bcrypt.compare(password, stored));
    return { match, rehash: true };
  }
  const parsed = decode(stored);
  const derived = await derive(password, parsed);
  const match = crypto.timingSafeEqual(derived, parsed.hash);
  const rehash = parsed.logN !== SCRYPT_PARAMS.logN || parsed.r !== SCRYPT_PARAMS.r || parsed.p !== SCRYPT_PARAMS.p || parsed.hash.length !== KEY_BYTES;
  return { match, rehash };
}

/**
 * Does the work of checking a password against a real hash, for a sign-in whose email has no
 * user, so that the answer takes as long as a wrong password does (contract §12). Never matches.
 */
export async function verifyAgainstNoUser(password: string): Promise<PasswordCheck> {
  await verifyPassword(password, NO_USER_HASH);
  return { match: false, rehash: false };
}

/** A hash with the current parameters that no password derives (its hash is all zeros). */
const NO_USER_HASH = encode({ ...SCRYPT_PARAMS, salt: Buffer.alloc(SALT_BYTES, 0x5a), hash: Buffer.alloc(KEY_BYTES) });

function derive(password: string, params: ScryptHash): Promise<Buffer> {
  const N = 2 ** params.logN;
  const maxmem = 128 * N * params.r + 128 * params.r * params.p + 1024 * 1024;
  return hashing(() => scrypt(password, params.salt, params.hash.length, { N, r: params.r, p: params.p, maxmem }));
}

function encode(h: ScryptHash): string {
  return `$scrypt$ln=${h.logN},r=${h.r},p=${h.p}$${b64(h.salt)}$${b64(h.hash)}`;
}

function b64(b: Buffer): string {
  return b.toString("base64").replace(/=+$/, "");
}

// A fixed format of one algorithm: a strict pattern is shorter and stricter than a general PHC parser.
const SCRYPT_PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{22,})$/;

function decode(stored: string): ScryptHash {
  const m = SCRYPT_PHC.exec(stored);
  if (!m) throw new MalformedPasswordHashError("neither a scrypt PHC string nor a bcrypt hash");
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 1 || r < 1 || p < 1 || 128 * 2 ** logN * r * p > MAX_SCRYPT_MEMORY) throw new MalformedPasswordHashError(`scrypt parameters out of range (ln=${logN}, r=${r}, p=${p})`);
  const salt = Buffer.from(m[4], "base64");
  const hash = Buffer.from(m[5], "base64");
  if (hash.length < 16 || hash.length > 64) throw new MalformedPasswordHashError("scrypt hash length out of range");
  return { logN, r, p, salt, hash };
}
