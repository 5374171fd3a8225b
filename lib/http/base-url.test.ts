import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "../env";
import { jobBaseUrl, jobMediaBaseUrl, mediaBaseUrl, publicBaseUrl } from "./base-url";

function useEnv(vars: Record<string, string>) {
  vi.unstubAllEnvs();
  for (const name of ["EASEL_PUBLIC_URL", "EASEL_MEDIA_ORIGIN", "EASEL_TRUST_PROXY", "PORT"]) vi.stubEnv(name, vars[name]);
  resetEnvCache();
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

const req = new Request("http://10.0.0.5:3000/v1/x", { headers: { host: "easel.example.com", "x-forwarded-proto": "https" } });

describe("origins of links", () => {
  it("without a media origin, media links use Easel's public origin (configured, else the request's)", () => {
    useEnv({ PORT: "4100" });
    // The TLS proxy's X-Forwarded-Proto counts only when Easel is told a proxy stands in front.
    expect(publicBaseUrl(req)).toBe("http://easel.example.com");
    useEnv({ PORT: "4100", EASEL_TRUST_PROXY: "1" });
    expect([publicBaseUrl(req), mediaBaseUrl(req), jobMediaBaseUrl()]).toEqual(["https://easel.example.com", "https://easel.example.com", "http://127.0.0.1:4100"]);
    useEnv({ EASEL_PUBLIC_URL: "https://easel.example.com/" });
    expect([mediaBaseUrl(req), jobBaseUrl(), jobMediaBaseUrl()]).toEqual(["https://easel.example.com", "https://easel.example.com", "https://easel.example.com"]);
  });

  it("EASEL_MEDIA_ORIGIN moves media and storage links, from requests and from jobs, and nothing else", () => {
    useEnv({ EASEL_PUBLIC_URL: "https://easel.example.com", EASEL_MEDIA_ORIGIN: "https://media.example-usercontent.net/ignored/path" });
    expect(mediaBaseUrl(req)).toBe("https://media.example-usercontent.net");
    expect(jobMediaBaseUrl()).toBe("https://media.example-usercontent.net");
    expect(publicBaseUrl(req)).toBe("https://easel.example.com");
    expect(jobBaseUrl()).toBe("https://easel.example.com");
  });
});
