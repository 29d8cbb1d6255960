// What several pages share: transaction rows of any chain in one shape, their tables, and paging
// by the Data API's page tokens (kept in the URL, so a page of a list is a real URL too).

import { get, query } from '../api.js';
import { primaryPath } from '../chains.js';
import { html, amount, asset, ago, id, txHref, addressLink, blockLink, table, statusBadge, num } from '../format.js';

export function evmTxRow(t, chain) {
  const token = (chain && chain.token) || { decimals: 18, symbol: 'AVAX' };
  const m = t.method || {};
  return {
    chain, id: t.txHash, time: t.blockTimestamp, block: t.blockNumber,
    type: m.methodName || (m.callType === 'NATIVE_TRANSFER' ? 'Transfer' : m.callType === 'CONTRACT_CREATION' ? 'Contract creation' : m.methodHash || 'Call'),
    from: t.from && t.from.address, to: t.to && t.to.address,
    value: amount(t.value || '0', token.decimals, token.symbol), failed: t.txStatus !== undefined && t.txStatus !== '1',
  };
}

// The value a primary-network tx moves: what it created (or unlocked), per asset.
function primaryValue(t) {
  const list = t.value || t.amountCreated || t.amountUnlocked || [];
  return list.length ? html`${list.slice(0, 2).map((a, i) => html`${i ? ', ' : ''}${asset(a)}`)}${list.length > 2 ? ' …' : ''}` : '';
}

export function primaryTxRow(t, chain) {
  return {
    chain, id: t.txHash, time: t.blockTimestamp ?? t.timestamp, block: t.blockNumber ?? t.blockHeight,
    type: t.txType, from: null, value: primaryValue(t), failed: false,
  };
}

// The latest `n` transactions across every chain: the EVM chains' (/v1/transactions) and the
// P-, X- and C-Chain's primary-network txs (the C-Chain's atomic txs).
export async function latestTxs(list, n, signal) {
  const byEvmId = new Map(list.filter((c) => c.evmChainId).map((c) => [c.evmChainId, c]));
  const primary = list.filter((c) => c.dataChain);
  const [evm, ...prim] = await Promise.all([
    get('/v1/transactions', { pageSize: n }, signal),
    ...primary.map((c) => get(`${primaryPath(c.dataChain)}/transactions`, { pageSize: n }, signal)),
  ]);
  const rows = evm.transactions.map((t) => evmTxRow(t, byEvmId.get(t.chainId) || { key: t.chainId, name: t.chainId }));
  primary.forEach((c, i) => rows.push(...prim[i].transactions.map((t) => primaryTxRow(t, c))));
  return rows.sort((a, b) => b.time - a.time).slice(0, n);
}

export function txRowsTable(rows, { chainColumn = false, blockColumn = true } = {}) {
  return table([
    chainColumn && ['Chain', (t) => t.chain.name],
    ['Tx', (t) => id(t.id, txHref(t.id))],
    ['Type', (t) => html`${t.type}${t.failed ? html` ${statusBadge(false, 'failed')}` : ''}`],
    blockColumn && ['Block', (t) => (t.block !== undefined ? blockLink(t.chain.key, t.block, `#${num(t.block)}`) : '')],
    ['From', (t) => (t.from ? addressLink(t.from) : '')],
    ['To', (t) => (t.to ? addressLink(t.to) : '')],
    ['Value', (t) => t.value, 'num'],
    ['Time', (t) => ago(t.time)],
  ].filter(Boolean), rows, 'No transactions.');
}

// A list page of a Data API route: the page token comes from and goes to the URL's `param`.
export async function listPage(ctx, path, params, key, param = 'page') {
  const token = ctx.query.get(param) || undefined;
  const page = await get(path, { ...params, pageToken: token }, ctx.signal);
  return { items: page[key] || [], next: page.nextPageToken, first: !token };
}

// Newer/older links for a list page: `next` is the token of the following page.
export function pager(ctx, next, first, param = 'page') {
  const here = new URLSearchParams(ctx.url.search);
  here.delete(param);
  const firstHref = ctx.url.pathname + query(Object.fromEntries(here));
  here.set(param, next || '');
  return html`<div class="pager">${first ? '' : html`<a href="${firstHref}">« First page</a>`}${next ? html`<a href="${ctx.url.pathname}?${here.toString()}" rel="next">Next page »</a>` : ''}</div>`;
}

export function notFound(ctx, what, key) {
  ctx.title('Not found');
  ctx.set(html`<div class="card notfound"><h1>${what} not found</h1><p class="muted mono">${key}</p>
<p>Nothing on this node's chains matches it.</p></div>`);
}
