// /explorer/chain/{chain}: one chain's head, latest blocks and latest transactions (paged).

import { get } from '../api.js';
import { chainByRef, primaryPath } from '../chains.js';
import { html, kv, num, ago, id, blockLink, table, short, txLink } from '../format.js';
import { evmTxRow, primaryTxRow, txRowsTable, listPage, pager, notFound } from './common.js';

export async function render(ctx) {
  const chain = await chainByRef(ctx.params.chain);
  if (!chain) return notFound(ctx, 'Chain', ctx.params.chain);
  ctx.title(chain.name);
  const evm = chain.kind === 'evm';
  const blocksPath = evm ? `/v1/chains/${chain.evmChainId}/blocks` : `${primaryPath(chain.dataChain)}/blocks`;
  const txPath = evm ? `/v1/chains/${chain.evmChainId}/transactions` : `${primaryPath(chain.dataChain)}/transactions`;
  const [blocks, txs, atomic] = await Promise.all([
    listPage(ctx, blocksPath, { pageSize: 10 }, 'blocks', 'blocks'),
    listPage(ctx, txPath, { pageSize: 25 }, 'transactions', 'txs'),
    chain.key === 'C' ? get(`${primaryPath('c-chain')}/transactions`, { pageSize: 10 }, ctx.signal) : null,
  ]);
  const head = blocks.items[0];
  ctx.set(html`<h1>${chain.name} <span class="tag">${evm ? `EVM chain ID ${chain.evmChainId}` : chain.key}</span></h1>
<section class="card">${kv([
    ['Blockchain ID', id(chain.blockchainId, null, { full: true })],
    ['Subnet', html`<a class="mono" href="/explorer/subnets/${chain.subnetId}">${chain.subnetId}</a>`],
    chain.subnetId !== chain.blockchainId && chain.key !== 'X' && chain.key !== 'C' ? ['Created by', txLink(chain.blockchainId)] : null,
    evm ? ['Native token', `${chain.token.name} (${chain.token.symbol}, ${chain.token.decimals} decimals)`] : null,
    evm ? ['RPC', html`<span class="mono">${location.origin}${chain.rpcPath}</span>`] : ['API', html`<span class="mono">${location.origin}${chain.rpcPath}</span>`],
    ['Head', head && blocks.first ? html`${blockLink(chain.key, head.blockNumber, `#${num(head.blockNumber)}`)} <span class="muted">${ago(head.blockTimestamp)}</span>` : '–'],
  ])}</section>
<div class="grid">
<section class="card"><h2>Blocks</h2>${table([
    ['Block', (b) => blockLink(chain.key, b.blockNumber, `#${num(b.blockNumber)}`)],
    ['Hash', (b) => id(b.blockHash)],
    ['Txs', (b) => num(b.txCount), 'num'],
    ['Time', (b) => ago(b.blockTimestamp)],
  ], blocks.items, 'No blocks.')}${pager(ctx, blocks.next, blocks.first, 'blocks')}</section>
<section class="card"><h2>Transactions</h2>${txRowsTable(txs.items.map((t) => (evm ? evmTxRow(t, chain) : primaryTxRow(t, chain))))}${pager(ctx, txs.next, txs.first, 'txs')}</section>
</div>
${atomic ? html`<section class="card"><h2>Atomic transactions</h2>${txRowsTable(atomic.transactions.map((t) => primaryTxRow(t, chain)))}</section>` : ''}`);
  ctx.title(`${chain.name} ${short(chain.blockchainId)}`);
}
