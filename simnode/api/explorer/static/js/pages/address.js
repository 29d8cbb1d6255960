// /explorer/address/{address}: a 0x address on the chain chosen (?chain=, default the C-Chain):
// native and ERC-20 balances, NFTs, paged transactions, and the code and deployment of a contract;
// or an X-/P-/C- bech32 address: balances per asset, UTXOs, transactions, staking.

import { get, rpc, PRIMARY } from '../api.js';
import { chains, chainByRef, primaryPath } from '../chains.js';
import { html, kv, num, amount, asset, when, ago, id, txLink, addressLink, table, short, enc, statusBadge } from '../format.js';
import { evmTxRow, primaryTxRow, txRowsTable, listPage, pager } from './common.js';
import { EVM_ADDRESS, BECH32 } from '../lookup.js';

export async function render(ctx) {
  const address = ctx.params.address;
  ctx.title(`Address ${short(address)}`);
  if (EVM_ADDRESS.test(address)) return renderEvm(ctx, address);
  if (BECH32.test(address)) return renderBech32(ctx, address);
  ctx.set(html`<div class="card notfound"><h1>Not an address</h1><p class="mono muted">${address}</p>
<p>An address is 0x and 40 hex digits, or an X-, P- or C-Chain bech32 address such as X-local1….</p></div>`);
}

// ------------------------------------------------------------------ 0x addresses

async function renderEvm(ctx, address) {
  const all = await chains();
  const evm = all.filter((c) => c.kind === 'evm');
  const chain = (await chainByRef(ctx.query.get('chain') || 'C')) || evm[0];
  const base = `/v1/chains/${chain.evmChainId}/addresses/${address}`;
  const [active, native, erc20, nfts, txs, code, nonce] = await Promise.all([
    get(`/v1/address/${address}/chains`, {}, ctx.signal),
    get(`${base}/balances:getNative`, {}, ctx.signal),
    get(`${base}/balances:listErc20`, { pageSize: 100 }, ctx.signal),
    get(`${base}/balances:listCollectibles`, { pageSize: 50 }, ctx.signal),
    listPage(ctx, `${base}/transactions`, { pageSize: 25 }, 'transactions'),
    rpc(chain.rpcPath, 'eth_getCode', [address, 'latest'], ctx.signal),
    rpc(chain.rpcPath, 'eth_getTransactionCount', [address, 'latest'], ctx.signal),
  ]);
  const isContract = code && code !== '0x';
  const [meta, deployment] = isContract ? await Promise.all([
    get(`/v1/chains/${chain.evmChainId}/addresses/${address}`, {}, ctx.signal),
    get(`/v1/chains/${chain.evmChainId}/contracts/${address}/transactions:getDeployment`, {}, ctx.signal).catch(() => null),
  ]) : [null, null];
  const activeIds = new Set(active.indexedChains.map((c) => c.chainId));
  const rows = txs.items.map((t) => {
    const r = evmTxRow(t.nativeTransaction, chain);
    r.direction = r.from && r.from.toLowerCase() === address.toLowerCase() ? 'out' : 'in';
    return r;
  });

  ctx.set(html`<h1>${isContract ? 'Contract' : 'Address'} <span class="mono">${address}</span></h1>
<div class="tabs">${evm.map((c) => html`<a href="/explorer/address/${address}?chain=${enc(c.key)}" class="${c === chain ? 'active' : ''}">${c.name}${activeIds.has(c.evmChainId) ? '' : html` <span class="muted">(no activity)</span>`}</a>`)}</div>
<section class="card">${kv([
    ['Address', id(address, null, { full: true })],
    ['Balance', html`<span id="native-balance">${amount(native.nativeTokenBalance.balance, native.nativeTokenBalance.decimals, native.nativeTokenBalance.symbol)}</span>`],
    ['Nonce', num(BigInt(nonce).toString())],
    isContract ? ['Contract', html`${meta.name ? html`${meta.name} ` : ''}${meta.symbol ? html`(${meta.symbol}) ` : ''}<span class="tag">${meta.ercType}</span>${meta.decimals !== undefined ? html` <span class="muted">${meta.decimals} decimals</span>` : ''}`] : null,
    deployment ? ['Deployed', html`by ${addressLink(deployment.nativeTransaction.from.address)} in ${txLink(deployment.nativeTransaction.txHash)} ${ago(deployment.nativeTransaction.blockTimestamp)}`] : null,
    isContract ? ['Code', html`${num((code.length - 2) / 2)} bytes<pre class="data" id="contract-code">${code}</pre>`] : null,
  ])}</section>
<div class="grid">
<section class="card" id="erc20-balances"><h2>ERC-20 tokens (${erc20.erc20TokenBalances.length})</h2>${table([
    ['Token', (b) => html`<a href="/explorer/address/${b.address}?chain=${enc(chain.key)}">${b.name}</a>`],
    ['Symbol', (b) => b.symbol],
    ['Balance', (b) => amount(b.balance, b.decimals, b.symbol), 'num'],
  ], erc20.erc20TokenBalances, 'No ERC-20 tokens.')}</section>
<section class="card" id="nfts"><h2>NFTs (${nfts.collectibleBalances.length})</h2>${table([
    ['Collection', (b) => html`<a href="/explorer/address/${b.address}?chain=${enc(chain.key)}">${b.name || short(b.address)}</a> <span class="tag">${b.ercType}</span>`],
    ['Token ID', (b) => html`<span class="mono">${b.tokenId}</span>`],
    ['Name', (b) => (b.metadata && b.metadata.name) || ''],
    ['Amount', (b) => num(b.balance || '1'), 'num'],
  ], nfts.collectibleBalances, 'No NFTs.')}</section>
</div>
<section class="card" id="transactions"><h2>Transactions on ${chain.name}</h2>${txRowsTable(rows)}${pager(ctx, txs.next, txs.first)}</section>`);
}

// ------------------------------------------------------------------ X-, P- and C-Chain bech32 addresses

const BALANCE_KINDS = {
  unlocked: 'Unlocked', locked: 'Locked', unlockedUnstaked: 'Unlocked', unlockedStaked: 'Staked (unlocked)',
  lockedPlatform: 'Locked', lockedStakeable: 'Locked, stakeable', lockedStaked: 'Staked (locked)', pendingStaked: 'Pending stake',
  atomicMemoryUnlocked: 'In shared memory (unlocked)', atomicMemoryLocked: 'In shared memory (locked)',
};

async function renderBech32(ctx, address) {
  const m = /^([XPC])-(.+)$/.exec(address);
  const bare = m ? m[2] : address;
  const key = m ? m[1] : 'P';
  const chain = await chainByRef(key);
  const path = primaryPath(chain.dataChain);
  const q = { addresses: bare };
  const [balances, utxos, txs, staking, rewards] = await Promise.all([
    get(`${path}/balances`, q, ctx.signal),
    listPage(ctx, `${path}/utxos`, { ...q, pageSize: 25 }, 'utxos', 'utxos'),
    key === 'C' ? null : listPage(ctx, `${path}/transactions`, { ...q, pageSize: 25 }, 'transactions'),
    key === 'P' ? get(`${path}/transactions:listStaking`, { ...q, pageSize: 50 }, ctx.signal) : null,
    key === 'P' ? get(`${PRIMARY}/rewards:listPending`, { ...q, pageSize: 50 }, ctx.signal) : null,
  ]);
  const balanceRows = Object.entries(balances.balances).flatMap(([kind, list]) => list.map((a) => ({ kind, a })));
  ctx.set(html`<h1>${chain.name} address <span class="mono">${key}-${bare}</span></h1>
<div class="tabs">${['X', 'P', 'C'].map((k) => html`<a href="/explorer/address/${k}-${bare}" class="${k === key ? 'active' : ''}">${k}-Chain</a>`)}</div>
<section class="card" id="balances"><h2>Balances</h2>${table([
    ['Kind', (r) => BALANCE_KINDS[r.kind] || r.kind],
    ['Asset', (r) => html`${r.a.name} <span class="muted">${r.a.symbol}</span>`],
    ['Amount', (r) => html`<span data-kind="${r.kind}" data-asset="${r.a.assetId}">${asset(r.a)}</span>`, 'num'],
    ['UTXOs', (r) => num(r.a.utxoCount), 'num'],
  ], balanceRows, 'No balance.')}</section>
${staking ? html`<section class="card" id="staking"><h2>Staking</h2>${table([
    ['Tx', (t) => txLink(t.txHash)], ['Type', (t) => t.txType],
    ['Node', (t) => (t.nodeId ? html`<a href="/explorer/validators/${t.nodeId}">${short(t.nodeId, 14, 6)}</a>` : '')],
    ['Staked', (t) => (t.amountStaked || []).map(asset), 'num'],
    ['Ends', (t) => (t.endTimestamp ? ago(t.endTimestamp) : '')],
  ], staking.transactions, 'No active staking.')}
${rewards && rewards.pendingRewards.length ? html`<h2>Pending rewards</h2>${table([
    ['Node', (r) => html`<a href="/explorer/validators/${r.nodeId}">${short(r.nodeId, 14, 6)}</a>`],
    ['Type', (r) => r.rewardType], ['Ends', (r) => when(r.endTimestamp)],
    ['Estimated reward', (r) => asset(r.estimatedReward), 'num'],
  ], rewards.pendingRewards)}` : ''}</section>` : ''}
<section class="card" id="utxos"><h2>UTXOs</h2>${table([
    ['UTXO', (u) => id(u.utxoId)],
    ['Made by', (u) => txLink(u.creationTxHash || u.txHash)],
    ['Amount', (u) => asset(u.asset), 'num'],
    ['Kind', (u) => html`${u.utxoType}${u.staked ? ' (staked)' : ''}`],
    ['Time', (u) => ago(u.timestamp ?? u.blockTimestamp)],
    ['', (u) => (u.consumingTxHash ? statusBadge(null, 'spent') : '')],
  ], utxos.items, 'No UTXOs.')}${pager(ctx, utxos.next, utxos.first, 'utxos')}</section>
${txs ? html`<section class="card" id="transactions"><h2>Transactions</h2>${txRowsTable(txs.items.map((t) => primaryTxRow(t, chain)))}${pager(ctx, txs.next, txs.first)}</section>` : ''}`);
}
