// Clients of the node's public APIs: the Data API and Metrics API (REST), JSON-RPC (gorilla and
// geth envelopes, both JSON-RPC 2.0 over POST). The explorer reads nothing else.

// Every name of the Data API's {network} means the network this node runs.
export const NETWORK = 'fuji';
export const PRIMARY = `/v1/networks/${NETWORK}`;

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

// GET a Data/Metrics API route; `params` become the query string. Non-2xx answers throw ApiError
// with the NestJS body's message.
export async function get(path, params, signal) {
  const resp = await fetch(path + query(params), { signal, headers: { accept: 'application/json' } });
  const body = await resp.json().catch(() => null);
  if (!resp.ok) {
    const msg = body && body.message ? [].concat(body.message).join('; ') : resp.statusText;
    throw new ApiError(resp.status, msg);
  }
  return body;
}

let rpcId = 0;

// A JSON-RPC call; `endpoint` is a path such as /ext/bc/P or /ext/bc/C/rpc. An error member throws RpcError.
export async function rpc(endpoint, method, params, signal) {
  const resp = await fetch(endpoint, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params: params === undefined ? [] : params }),
  });
  if (!resp.ok) throw new ApiError(resp.status, `${method}: HTTP ${resp.status}`);
  const body = await resp.json();
  if (body.error) throw new RpcError(body.error.code, body.error.message);
  return body.result;
}

export const simnode = (method, params = {}) => rpc('/ext/simnode', `simnode.${method}`, params);
