// /explorer/block/{chain}/{numberOrHashOrId}: an EVM block (Data API, by number or hash) with its
// transactions, or a P-/X-Chain block (by height or ID) with its transactions.

import { get } from '../api.js';
import { chainByRef, primaryPath } from '../chains.js';
import { html, kv, num, when, id, blockLink, chainHref, amount, gwei, percent, short } from '../format.js';
import { evmTxRow, primaryTxRow, txRowsTable, listPage, pager, notFound } from './common.js';

const PRIMARY_TXS_SHOWN = 100;

export async function render(ctx) {
  const { chain: ref, block } = ctx.params;
  const chain = await chainByRef(ref);
  if (!chain) return notFound(ctx, 'Chain', ref);
  ctx.title(`${chain.name} block ${short(block)}`);
  if (chain.kind === 'evm') return renderEvm(ctx, chain, block);
  return renderPrimary(ctx, chain, block);
}

function neighbours(chain, number, head) {
  const n = Number(number);
  return html`<div class="pager">${n > 0 ? blockLink(chain.key, n - 1, '« Previous block') : ''}${head === undefined || n < head ? blockLink(chain.key, n + 1, 'Next block »') : ''}</div>`;
}

async function renderEvm(ctx, chain, blockId) {
  const base = `/v1/chains/${chain.evmChainId}/blocks/${blockId}`;
  let b;
  try {
    b = await get(base, {}, ctx.signal);
  } catch (err) {
    if (err.status === 404 || err.status === 400) return notFound(ctx, `${chain.name} block`, blockId);
    throw err;
  }
  const token = chain.token || { decimals: 18, symbol: 'AVAX' };
  const [txs, latest] = await Promise.all([
    listPage(ctx, `${base}/transactions`, { pageSize: 25 }, 'transactions'),
    get(`/v1/chains/${chain.evmChainId}/blocks`, { pageSize: 1 }, ctx.signal),
  ]);
  const head = Number(latest.blocks[0].blockNumber);
  ctx.set(html`<h1>${chain.name} block #${num(b.blockNumber)}</h1>
<section class="card">${kv([
    ['Number', html`<span id="block-number">${b.blockNumber}</span>`],
    ['Hash', id(b.blockHash, null, { full: true })],
    ['Parent', Number(b.blockNumber) > 0 ? html`<a class="mono" href="/explorer/block/${chain.key}/${b.parentHash}">${b.parentHash}</a>` : html`<span class="mono">${b.parentHash}</span>`],
    ['Chain', html`<a href="${chainHref(chain.key)}">${chain.name}</a>`],
    ['Time', when(b.blockTimestamp)],
    ['Transactions', html`<span id="block-txcount">${num(b.txCount)}</span>`],
    ['Gas used', html`${num(b.gasUsed)} of ${num(b.gasLimit)} <span class="muted">(${percent(Number(b.gasUsed) * 100 / Number(b.gasLimit))})</span>`],
    ['Base fee', gwei(b.baseFee)],
    ['Fees spent', amount(b.feesSpent, token.decimals, token.symbol)],
    b.gasCost !== undefined ? ['Block gas cost', num(b.gasCost)] : null,
    ['Transactions so far', num(b.cumulativeTransactions)],
  ])}${neighbours(chain, b.blockNumber, head)}</section>
<section class="card"><h2>Transactions</h2>${txRowsTable(txs.items.map((t) => evmTxRow(t, chain)), { blockColumn: false })}${pager(ctx, txs.next, txs.first)}</section>`);
}

async function renderPrimary(ctx, chain, blockId) {
  const path = primaryPath(chain.dataChain);
  let b;
  try {
    b = await get(`${path}/blocks/${blockId}`, {}, ctx.signal);
  } catch (err) {
    if (err.status === 404 || err.status === 400) return notFound(ctx, `${chain.name} block`, blockId);
    throw err;
  }
  const [txs, latest] = await Promise.all([
    Promise.all(b.transactions.slice(0, PRIMARY_TXS_SHOWN).map((t) => get(`${path}/transactions/${t}`, {}, ctx.signal))),
    get(`${path}/blocks`, { pageSize: 1 }, ctx.signal),
  ]);
  const head = Number(latest.blocks[0].blockNumber);
  ctx.set(html`<h1>${chain.name} block #${num(b.blockNumber)}</h1>
<section class="card">${kv([
    ['Height', html`<span id="block-number">${b.blockNumber}</span>`],
    ['Block ID', id(b.blockHash, null, { full: true })],
    ['Parent', Number(b.blockNumber) > 0 ? html`<a class="mono" href="/explorer/block/${chain.key}/${b.parentHash}">${b.parentHash}</a>` : html`<span class="mono">${b.parentHash}</span>`],
    ['Chain', html`<a href="${chainHref(chain.key)}">${chain.name}</a>`],
    ['Type', b.blockType],
    ['Time', when(b.blockTimestamp)],
    ['Transactions', html`<span id="block-txcount">${num(b.txCount)}</span>`],
    ['Size', `${num(b.blockSizeBytes)} bytes`],
  ])}${neighbours(chain, b.blockNumber, head)}</section>
<section class="card"><h2>Transactions</h2>${txRowsTable(txs.map((t) => primaryTxRow(t, chain)), { blockColumn: false })}
${b.transactions.length > PRIMARY_TXS_SHOWN ? html`<p class="muted">The first ${PRIMARY_TXS_SHOWN} of ${b.transactions.length}.</p>` : ''}</section>`);
}
