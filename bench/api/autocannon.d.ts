// autocannon ships no types; the benches use this much of it.
declare module "autocannon" {
  type Result = {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    statusCodeStats?: Record<string, { count: number }>;
  };
  export default function autocannon(opts: { url: string; method?: string; connections: number; duration?: number; amount?: number; headers?: Record<string, string> }): Promise<Result>;
}
