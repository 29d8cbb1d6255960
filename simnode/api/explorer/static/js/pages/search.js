// /explorer/search?q=…: a tx hash or ID, block number or hash, address, node ID, subnet ID, chain ID
// or ICM message ID lands on its page (the URL is replaced by it); several matches are listed.

import { get } from '../api.js';
import { chains, chainByRef } from '../chains.js';
import { html, num } from '../format.js';
import { HASH32, EVM_ADDRESS, CB58, NODE_ID, BECH32, findEvmTx, findEvmBlock, findPrimaryTx, findPrimaryBlock, isSubnet, findChain } from '../lookup.js';

async function icmMessage(hex, signal) {
  const bare = hex.replace(/^0x/, '').toLowerCase();
  // messages list filtered by nothing is not a lookup; ask for the one ID (a 404 when unknown)
  try {
    await get(`/v1/icm/messages/${bare}`, {}, signal);
    return `/explorer/icm/${bare}`;
  } catch {
    return null;
  }
}

// The pages a key can be, most specific first.
async function targets(q, signal) {
  if (EVM_ADDRESS.test(q)) return [[`/explorer/address/${q}`, 'Address']];
  if (BECH32.test(q)) return [[`/explorer/address/${q}`, 'Address']];
  if (NODE_ID.test(q)) return [[`/explorer/validators/${q}`, 'Validator']];
  if (/^\d+$/.test(q)) {
    const evmByChainId = (await chains()).find((c) => c.evmChainId === q);
    const out = [];
    const c = await chainByRef('C');
    if (await findEvmBlockNumber(c, q, signal)) out.push([`/explorer/block/C/${q}`, `C-Chain block #${num(q)}`]);
    if (evmByChainId) out.push([`/explorer/chain/${evmByChainId.key}`, `${evmByChainId.name} (EVM chain ID ${q})`]);
    return out;
  }
  if (HASH32.test(q) || /^[0-9a-fA-F]{64}$/.test(q)) {
    const hash = (q.startsWith('0x') ? q : `0x${q}`).toLowerCase();
    const [tx, block] = await Promise.all([findEvmTx(hash, signal), findEvmBlock(hash, signal)]);
    if (tx) return [[`/explorer/tx/${hash}`, `Transaction on ${tx.chain.name}`]];
    if (block) return [[`/explorer/block/${block.chain.key}/${hash}`, `${block.chain.name} block`]];
    const msg = await icmMessage(hash, signal);
    return msg ? [[msg, 'ICM message']] : [];
  }
  if (CB58.test(q)) {
    const [chain, tx, block, subnet] = await Promise.all([findChain(q), findPrimaryTx(q, signal), findPrimaryBlock(q, signal), isSubnet(q, signal)]);
    // a chain's and a subnet's IDs are those of the txs that created them: their pages link those
    if (chain) return [[`/explorer/chain/${chain.key}`, chain.name]];
    if (subnet) return [[`/explorer/subnets/${q}`, 'Subnet']];
    const out = [];
    if (tx) out.push([`/explorer/tx/${q}`, `Transaction on ${tx.chain.name}`]);
    if (block) out.push([`/explorer/block/${block.key}/${q}`, `${block.name} block`]);
    return out;
  }
  return [];
}

async function findEvmBlockNumber(chain, n, signal) {
  const latest = await get(`/v1/chains/${chain.evmChainId}/blocks`, { pageSize: 1 }, signal);
  return latest.blocks.length && BigInt(n) <= BigInt(latest.blocks[0].blockNumber);
}

export async function render(ctx) {
  const q = (ctx.query.get('q') || '').trim();
  ctx.title(`Search ${q}`);
  const input = document.querySelector('header form.search input');
  if (input) input.value = '';
  if (!q) {
    ctx.set(html`<div class="card"><h1>Search</h1><p>Type a transaction hash or ID, a block number or hash, an address, a node ID, a subnet or chain ID in the box above.</p></div>`);
    return;
  }
  const found = await targets(q, ctx.signal);
  if (found.length === 1 || (found.length > 1 && /^\d+$/.test(q))) {
    await ctx.navigate(found[0][0], { replace: true });
    return;
  }
  ctx.set(html`<div class="card"><h1>Search</h1><p class="mono">${q}</p>
${found.length ? html`<p>This matches several things:</p><ul id="search-results">${found.map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ul>`
    : html`<p id="search-none">Nothing on this node's chains matches it.</p>`}</div>`);
}
