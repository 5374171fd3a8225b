/**
 * The private-address table every SSRF test uses (POST /v1/trigger in ssrf.test.ts, the MCP
 * create_asset_version tool in ssrf-mcp.test.ts): literal spellings of loopback, private,
 * link-local and metadata addresses, and names answered through an injected resolver
 * (dns.promises.lookup, which lib/net/url-guard.ts's systemResolver calls). `public.rebind.test`
 * is the one name with only public answers: a control that must pass the guard.
 */
export const LITERALS = [
  "http://2130706433/hook",
  "http://0x7f000001/hook",
  "http://0x7f.1/hook",
  "http://017700000001/hook",
  "http://127.1/hook",
  "http://127.255.255.254/hook",
  "http://0.0.0.0/hook",
  "http://[::]/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://[::ffff:7f00:1]/hook",
  "http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data/",
  "http://[::ffff:10.0.0.1]/hook",
  "http://[::ffff:192.168.1.1]/hook",
  "http://169.254.169.254./latest/meta-data/",
  "http://2852039166/latest/meta-data/",
  "http://0xa9fea9fe/latest/meta-data/",
  "http://10.255.255.255/hook",
  "http://172.31.255.255/hook",
  "http://192.168.0.1/hook",
  "http://[fe80::1]/hook",
  "https://127.0.0.1:443/hook",
];

export const DNS: Record<string, { address: string; family: 4 | 6 }[]> = {
  "metadata.rebind.test": [{ address: "169.254.169.254", family: 4 }],
  "loopback.rebind.test": [{ address: "127.0.0.1", family: 4 }],
  "ten.rebind.test": [{ address: "10.1.2.3", family: 4 }],
  "one72.rebind.test": [{ address: "172.20.0.1", family: 4 }],
  "one92.rebind.test": [{ address: "192.168.10.10", family: 4 }],
  "v6loop.rebind.test": [{ address: "::1", family: 6 }],
  "mapped.rebind.test": [{ address: "::ffff:127.0.0.1", family: 6 }],
  "mixed.rebind.test": [
    { address: "93.184.215.14", family: 4 },
    { address: "192.168.1.1", family: 4 },
  ],
  "public.rebind.test": [{ address: "93.184.215.14", family: 4 }],
};

/** The plain spellings (tests/webhooks/triggers.test.ts sends these to the trigger route). */
export const BASIC = [
  "http://127.0.0.1/hook",
  "http://localhost/hook",
  "http://[::1]/hook",
  "http://0177.0.0.1/hook",
  "http://10.0.0.1/hook",
  "http://172.16.0.1/hook",
  "http://192.168.1.1/hook",
  "http://169.254.169.254/latest/meta-data/",
  "http://[fd00::1]/hook",
  "http://100.64.0.1/hook",
];
