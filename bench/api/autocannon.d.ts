// autocannon ships no types; bench/api uses this much of it.
declare module "autocannon" {
  type Result = { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
  export default function autocannon(opts: { url: string; connections: number; duration: number; headers?: Record<string, string> }): Promise<Result>;
}
