// Live heads: every EVM chain's newHeads over its websocket (eth_subscribe, as any web3 client
// listens), and the P- and X-Chain's heights polled while the page is visible (their APIs have no
// subscription). `watchHeads` calls onHead(chainKey, height) on every new head, until the page's
// cleanup.

import { rpc } from './api.js';

const POLL_MS = 1000;
const RECONNECT_MS = 2000;

export function watchHeads(chainList, onHead, ctx) {
  let stopped = false;
  const sockets = new Map();
  const heights = new Map();

  function seen(key, height) {
    if (heights.get(key) === height) return;
    const first = !heights.has(key);
    heights.set(key, height);
    if (!first) onHead(key, height);
  }

  function connect(chain) {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}${chain.wsPath}`);
    sockets.set(chain.key, ws);
    ws.addEventListener('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.method === 'eth_subscription' && msg.params && msg.params.result) {
        const height = parseInt(msg.params.result.number, 16);
        heights.set(chain.key, height);
        onHead(chain.key, height);
      }
    });
    ws.addEventListener('close', () => {
      if (!stopped && sockets.get(chain.key) === ws) setTimeout(() => { if (!stopped) connect(chain); }, RECONNECT_MS);
    });
  }

  function add(list) {
    for (const chain of list) {
      if (chain.kind === 'evm' && !sockets.has(chain.key)) connect(chain);
    }
  }

  const polled = () => chainList.filter((c) => c.kind !== 'evm');
  async function poll() {
    if (document.visibilityState !== 'visible') return;
    await Promise.all(polled().map(async (c) => {
      const r = await rpc(c.rpcPath, c.heightMethod, {});
      seen(c.key, Number(r.height));
    })).catch(() => {});
  }

  add(chainList);
  poll();
  const timer = setInterval(poll, POLL_MS);
  ctx.onCleanup(() => {
    stopped = true;
    clearInterval(timer);
    for (const ws of sockets.values()) ws.close();
  });
  return {
    // chains found later (an L1 created while the page is open)
    add(list) { chainList = list; add(list); },
  };
}
