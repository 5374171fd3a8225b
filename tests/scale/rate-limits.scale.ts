import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaleServerUrl, startCluster, type Cluster } from "../../bench/scale/setup";

/**
 * Rate limits across nodes (contract §10, docs/scaling.md "Limits across nodes"): two app nodes
 * (`npm start` of one build) on one PostgreSQL count one API token's requests together, so the
 * token gets EASEL_RATE_LIMIT_PER_MIN in a minute from the whole deployment, not from each node.
 * Needs a build (`npm run build`, or EASEL_APP_DIR) and PostgreSQL (TEST_DATABASE_URL or DATABASE_URL).
 */
const serverUrl = scaleServerUrl();

const LIMIT = 60;
let cluster: Cluster;
let A: string;
let B: string;

type Answer = { status: number; headers: Headers; body: any };
async function get(origin: string, token: string): Promise<Answer> {
  const r = await fetch(`${origin}/v1/limits/boards`, { headers: { authorization: `Bearer ${token}` } });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
}
const header = (a: Answer, name: string) => a.headers.get(name);

beforeAll(async () => {
  cluster = await startCluster({ serverUrl, nodes: 2, env: { EASEL_RATE_LIMIT_PER_MIN: String(LIMIT) } });
  [A, B] = cluster.nodes.map((n) => n.origin);
  await cluster.cli("workspace", "create", "limits", "--plan", "team");
}, 300_000);

afterAll(async () => {
  await cluster?.close();
});

describe(`one token's ${LIMIT}/min across two nodes on one PostgreSQL`, () => {
  it(`100 concurrent requests spread over both nodes: exactly ${LIMIT} served, the rest 429 rate_limited with the headers`, async () => {
    const token = await cluster.cli("token", "create", "limits", "--scopes", "read");
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 ? A : B, token)));
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(served).toHaveLength(LIMIT);
    // Each node served part of the budget (neither had it to itself), and every count was seen once.
    expect(answers.filter((a, i) => i % 2 === 1 && a.status === 200).length).toBeGreaterThan(0);
    expect(answers.filter((a, i) => i % 2 === 0 && a.status === 200).length).toBeGreaterThan(0);
    expect(served.map((a) => Number(header(a, "ratelimit-remaining"))).sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const a of answers) {
      expect(header(a, "ratelimit-limit")).toBe(String(LIMIT));
      expect(Number(header(a, "ratelimit-reset"))).toBeGreaterThan(0);
      expect(Number(header(a, "ratelimit-reset"))).toBeLessThanOrEqual(60);
    }
    for (const a of refused) {
      expect(a.status).toBe(429);
      expect(a.body).toMatchObject({ errors: [{ extensions: { code: "rate_limited" } }] });
      expect(typeof a.body.errors[0].message).toBe("string");
      expect(header(a, "ratelimit-remaining")).toBe("0");
      expect(Number(header(a, "retry-after"))).toBeGreaterThan(0);
    }
  });

  it("one after another, alternating nodes: each node counts the other's requests", async () => {
    const token = await cluster.cli("token", "create", "limits", "--scopes", "read");
    const answers: Answer[] = [];
    for (let i = 0; i < LIMIT + 2; i++) answers.push(await get(i % 2 ? B : A, token));
    expect(answers.map((a) => a.status)).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    expect(answers.slice(0, LIMIT).map((a) => Number(header(a, "ratelimit-remaining")))).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    // Another token has its own budget on both nodes.
    const other = await cluster.cli("token", "create", "limits", "--scopes", "read");
    expect((await get(B, other)).status).toBe(200);
  });
});
