// The real @avalanche-sdk/chainkit 0.3.13 pointed at a running simnode: telemetry off (it would
// post to posthog), no retries, and a fetcher that sends every request to the node whatever host
// the SDK's per-operation server names.
import { Avalanche, HTTPClient } from "@avalanche-sdk/chainkit";

export function chainkitForNode(base, options = {}) {
  const node = new URL(base);
  const httpClient = new HTTPClient({
    fetcher: async (input, init) => {
      const req = input instanceof Request ? input : new Request(input, init);
      const url = new URL(req.url);
      url.protocol = node.protocol;
      url.host = node.host;
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      return fetch(new Request(url, { method: req.method, headers: req.headers, body }));
    },
  });
  return new Avalanche({
    network: "fuji",
    chainId: "43112",
    enableTelemetry: false,
    retryConfig: { strategy: "none" },
    httpClient,
    ...options,
  });
}
