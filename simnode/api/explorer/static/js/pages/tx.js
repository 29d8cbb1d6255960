// /explorer/tx/{hashOrId}: a transaction of any chain, found wherever it is. EVM txs from the Data
// API (value, gas, token transfers, internal txs) and the receipt's logs decoded; a failed one's
// revert reason from debug_traceTransaction. P-, X- and C-Chain atomic txs with their inputs,
// outputs, assets and memo, an atomic tx linked to its counterpart on the other chain.

import { get, rpc } from '../api.js';
import { chains, chainByHex, primaryPath } from '../chains.js';
import {
  html, kv, amount, gwei, asset, navax, when, id, txLink, addressLink, blockLink, table, statusBadge, num, hexToUtf8,
  chainHref, addressHref, short, percent,
} from '../format.js';
import { decodeLog } from '../events.js';
import { findEvmTx, findPrimaryTx, HASH32 } from '../lookup.js';
import { notFound } from './common.js';

export async function render(ctx) {
  const key = ctx.params.tx;
  ctx.title(`Transaction ${short(key)}`);
  if (HASH32.test(key)) {
    const found = await findEvmTx(key.toLowerCase(), ctx.signal);
    if (found) return renderEvm(ctx, found.chain, found.tx);
  } else {
    const found = await findPrimaryTx(key, ctx.signal);
    if (found) return renderPrimary(ctx, found.chain, key, found.status);
  }
  return notFound(ctx, 'Transaction', key);
}

// ------------------------------------------------------------------ EVM

async function tokenInfo(chain, addresses, known, signal) {
  const missing = [...addresses].filter((a) => !known.has(a));
  const infos = await Promise.all(missing.map((a) => get(`/v1/chains/${chain.evmChainId}/addresses/${a}`, {}, signal).catch(() => null)));
  missing.forEach((a, i) => { if (infos[i]) known.set(a, infos[i]); });
  return known;
}

async function renderEvm(ctx, chain, rpcTx) {
  const hash = rpcTx.hash;
  const token = chain.token || { symbol: 'AVAX', decimals: 18 };
  if (!rpcTx.blockNumber) {
    ctx.set(html`<h1>Transaction</h1><div class="card">${kv([
      ['Hash', id(hash, null, { full: true })], ['Status', statusBadge(null, 'pending (in the mempool)')],
      ['Chain', html`<a href="${chainHref(chain.key)}">${chain.name}</a>`], ['From', addressLink(rpcTx.from)],
      ['To', rpcTx.to ? addressLink(rpcTx.to) : 'contract creation'], ['Value', amount(BigInt(rpcTx.value), token.decimals, token.symbol)],
      ['Gas limit', num(BigInt(rpcTx.gas).toString())], ['Nonce', num(BigInt(rpcTx.nonce).toString())],
    ])}</div>`);
    return;
  }
  const [detail, receipt] = await Promise.all([
    get(`/v1/chains/${chain.evmChainId}/transactions/${hash}`, {}, ctx.signal),
    rpc(chain.rpcPath, 'eth_getTransactionReceipt', [hash], ctx.signal),
  ]);
  const n = detail.nativeTransaction;
  const ok = receipt.status === '0x1';
  let reason = null;
  if (!ok) {
    const trace = await rpc(chain.rpcPath, 'debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }], ctx.signal).catch(() => null);
    reason = trace ? (trace.revertReason ? `${trace.error}: ${trace.revertReason}` : trace.error) : null;
  }
  const gasUsed = BigInt(receipt.gasUsed);
  const price = BigInt(receipt.effectiveGasPrice || n.gasPrice);
  const known = new Map();
  for (const t of [...detail.erc20Transfers, ...detail.erc721Transfers, ...detail.erc1155Transfers]) {
    const tk = t.erc20Token || t.erc721Token || t.erc1155Token;
    if (tk) known.set(tk.address.toLowerCase(), tk);
  }
  const decoded = receipt.logs.map((l) => ({ log: l, ev: decodeLog(l) }));
  const tokenAddrs = new Set(decoded.filter((d) => d.ev && /^ERC/.test(d.ev.standard)).map((d) => d.log.address.toLowerCase()));
  await tokenInfo(chain, tokenAddrs, known, ctx.signal);
  const logsHtml = await Promise.all(decoded.map((d) => logView(d.log, d.ev, known, chain)));
  const m = n.method || {};
  const input = n.input || '0x';

  ctx.set(html`<h1>Transaction <span class="tag">${chain.name}</span></h1>
<section class="card">${kv([
    ['Hash', id(hash, null, { full: true })],
    ['Status', html`<span id="tx-status">${statusBadge(ok, ok ? 'Success' : 'Failed')}</span>${reason ? html` <span class="error" id="revert-reason">${reason}</span>` : ''}`],
    ['Chain', html`<a href="${chainHref(chain.key)}">${chain.name}</a> <span class="muted">(EVM chain ID ${chain.evmChainId})</span>`],
    ['Block', html`${blockLink(chain.key, n.blockNumber, `#${num(n.blockNumber)}`)} <span class="muted">position ${n.blockIndex}</span>`],
    ['Time', when(n.blockTimestamp)],
    ['From', addressLink(n.from.address, { full: true })],
    ['To', n.to && n.to.address ? addressLink(n.to.address, { full: true })
      : receipt.contractAddress ? html`contract created: ${addressLink(receipt.contractAddress, { full: true })}` : '–'],
    receipt.contractAddress && n.to && n.to.address ? ['Contract created', addressLink(receipt.contractAddress, { full: true })] : null,
    ['Value', html`<span id="tx-value">${amount(n.value, token.decimals, token.symbol)}</span>`],
    ['Fee', html`<span id="tx-fee">${amount(gasUsed * price, token.decimals, token.symbol)}</span>`],
    ['Gas used', html`${num(gasUsed.toString())} of ${num(n.gasLimit)} <span class="muted">(${percent(Number(gasUsed * 10000n / BigInt(n.gasLimit)) / 100)})</span>`],
    ['Gas price', html`${gwei(price)}${n.maxFeePerGas ? html` <span class="muted">(max ${gwei(n.maxFeePerGas)}, tip ${gwei(n.maxPriorityFeePerGas)}, base ${gwei(n.baseFeePerGas)})</span>` : ''}`],
    ['Nonce', num(n.nonce)],
    ['Type', `${n.txType}`],
    ['Method', m.methodName ? html`${m.methodName} <span class="muted mono">${m.methodHash}</span>` : html`<span class="mono">${m.methodHash || '–'}</span> <span class="muted">${m.callType || ''}</span>`],
    ['Input', input === '0x' ? html`<span class="muted">none</span>` : html`<pre class="data">${input}</pre>`],
  ])}</section>
${tokenTransfers(detail, known)}
${detail.internalTransactions.length ? html`<section class="card"><h2>Internal transactions (${detail.internalTransactions.length})</h2>${table([
    ['Type', (t) => t.internalTxType],
    ['From', (t) => addressLink(t.from.address)],
    ['To', (t) => addressLink(t.to.address)],
    ['Value', (t) => amount(t.value, token.decimals, token.symbol), 'num'],
    ['Gas used', (t) => num(t.gasUsed), 'num'],
    ['', (t) => (t.isReverted ? statusBadge(false, 'reverted') : '')],
  ], detail.internalTransactions)}</section>` : ''}
<section class="card" id="logs"><h2>Logs (${receipt.logs.length})</h2>${logsHtml.length ? logsHtml : html`<p class="empty">No logs.</p>`}</section>`);
}

function tokenTransfers(detail, known) {
  const rows = [];
  for (const t of detail.erc20Transfers) {
    const tk = t.erc20Token;
    rows.push({ std: 'ERC-20', t, what: amount(t.value, tk.decimals, tk.symbol || short(tk.address)), token: tk });
  }
  for (const t of detail.erc721Transfers) rows.push({ std: 'ERC-721', t, what: html`token #${t.erc721Token.tokenId}`, token: t.erc721Token });
  for (const t of detail.erc1155Transfers) {
    rows.push({ std: 'ERC-1155', t, what: html`${num(t.value)} × token #${t.erc1155Token.tokenId}`, token: t.erc1155Token });
  }
  if (!rows.length) return '';
  return html`<section class="card" id="token-transfers"><h2>Token transfers (${rows.length})</h2>${table([
    ['Standard', (r) => r.std],
    ['Token', (r) => html`<a href="${addressHref(r.token.address)}">${r.token.symbol || r.token.name || short(r.token.address)}</a>`],
    ['From', (r) => addressLink(r.t.from.address)],
    ['To', (r) => addressLink(r.t.to.address)],
    ['Amount', (r) => r.what, 'num'],
  ], rows)}</section>`;
}

async function argValue(name, value, fields, kind, ev, info, chain) {
  if (kind === 'address') return addressLink(value, { full: true });
  if (kind === 'bool') return String(value);
  if (kind === 'bytes32' && /blockchainid$/i.test(name)) {
    const c = await chainByHex(value);
    return c ? html`<a href="${chainHref(c.key)}">${c.name}</a> <span class="muted mono">${short(c.blockchainId)}</span>` : html`<span class="mono">${value}</span>`;
  }
  if (name === 'messageID') return html`<a class="mono" href="/explorer/icm/${value.slice(2)}">${value}</a>`;
  if (['value', 'wad', 'amount'].includes(name) && info && info.ercType === 'ERC-20' && /^ERC-20|WAVAX/.test(ev.standard)) {
    return amount(value, info.decimals, info.symbol);
  }
  if (Array.isArray(value)) {
    if (fields) {
      const parts = await Promise.all(value.map((v, i) => argValue(fields[i] || String(i), v, null, typeof v === 'string' && /^0x[0-9a-f]{40}$/.test(v) ? 'address' : '', ev, info, chain)));
      return html`<div class="args">${parts.map((p, i) => html`<span>${fields[i] || i}</span><span>${p}</span>`)}</div>`;
    }
    return html`<span class="mono">[${value.map((v) => (Array.isArray(v) ? `(${v.join(', ')})` : v)).join(', ')}]</span>`;
  }
  if (name === 'message' && typeof value === 'string' && value.startsWith('0x')) return html`<pre class="data">${value}</pre>`;
  return html`<span class="mono">${value}</span>`;
}

async function logView(log, ev, known, chain) {
  const info = known.get(log.address.toLowerCase());
  const who = info && info.symbol ? html`${addressLink(log.address)} <span class="tag">${info.symbol}</span>` : addressLink(log.address);
  if (!ev) {
    return html`<div class="log"><div><span class="event muted">unknown event</span> · ${who}</div>
<div class="args">${log.topics.map((t, i) => html`<span>topic ${i}</span><span class="mono">${t}</span>`)}<span>data</span><span><pre class="data">${log.data}</pre></span></div></div>`;
  }
  const standard = ev.standard === 'ERC-20' && info && info.ercType && info.ercType !== 'ERC-20' ? info.ercType : ev.standard;
  const values = await Promise.all(ev.args.map(([name, value, fields, kind]) => argValue(name, value, fields, kind, ev, info, chain)));
  return html`<div class="log" data-event="${ev.name}"><div><span class="event">${ev.name}</span> <span class="tag">${standard}</span> · ${who} <span class="muted">log ${parseInt(log.logIndex, 16)}</span></div>
<div class="args">${ev.args.map(([name], i) => html`<span>${name}</span><span>${values[i]}</span>`)}</div></div>`;
}

// ------------------------------------------------------------------ P-, X- and C-Chain (atomic)

async function renderPrimary(ctx, chain, txId, status) {
  const [t, all] = await Promise.all([get(`${primaryPath(chain.dataChain)}/transactions/${txId}`, {}, ctx.signal), chains()]);
  const byId = new Map(all.map((c) => [c.blockchainId, c]));
  const chainOf = (bid) => byId.get(bid);
  const prefixed = (addr, bid) => {
    const c = chainOf(bid);
    return c && ['P', 'X', 'C'].includes(c.key) ? `${c.key}-${addr}` : addr;
  };
  const time = t.blockTimestamp ?? t.timestamp;
  const height = t.blockNumber ?? t.blockHeight;
  const memo = t.memo ? hexToUtf8(t.memo) : '';
  const counterpart = atomicCounterpart(t, chainOf);
  const avaxOf = (list) => (list || []).reduce((s, a) => s + BigInt(a.amount), 0n);
  const burned = t.amountBurned ? t.amountBurned.map(asset)
    : chain.key === 'X' ? [navax(avaxOf(t.consumedUtxos?.filter((u) => u.asset.symbol === 'AVAX').map((u) => u.asset)) - avaxOf(t.emittedUtxos?.filter((u) => u.asset.symbol === 'AVAX').map((u) => u.asset)))]
      : chain.key === 'C' ? [navax(avaxOf(t.amountUnlocked) - avaxOf(t.amountCreated))] : [];

  ctx.set(html`<h1>${t.txType} <span class="tag">${chain.name}</span></h1>
<section class="card">${kv([
    ['Tx ID', id(t.txHash, null, { full: true })],
    ['Status', html`<span id="tx-status">${statusBadge(true, status)}</span>`],
    ['Chain', html`<a href="${chainHref(chain.key)}">${chain.name}</a>`],
    ['Type', t.txType],
    ['Block', html`${blockLink(chain.key, height, `#${num(height)}`)} <span class="muted mono">${short(t.blockHash)}</span>`],
    ['Time', when(time)],
    t.sourceChain ? ['Source chain', chainLabel(chainOf(t.sourceChain), t.sourceChain)] : null,
    t.destinationChain ? ['Destination chain', chainLabel(chainOf(t.destinationChain), t.destinationChain)] : null,
    counterpart.length ? ['Counterpart', html`<span id="counterpart">${counterpart.map(([label, txId2]) => html`${label}: ${txLink(txId2)} `)}</span>`] : null,
    t.value ? ['Value', t.value.map(asset)] : null,
    burned.length ? ['Fee (burned)', html`<span id="tx-fee">${burned}</span>`] : null,
    t.amountStaked && t.amountStaked.length ? ['Staked', t.amountStaked.map(asset)] : null,
    t.nodeId ? ['Node', html`<a href="/explorer/validators/${t.nodeId}">${t.nodeId}</a>`] : null,
    t.subnetId ? ['Subnet', html`<a href="/explorer/subnets/${t.subnetId}">${t.subnetId}</a>`] : null,
    t.startTimestamp ? ['Staking period', html`${when(t.startTimestamp)} → ${when(t.endTimestamp)}`] : null,
    t.delegationFeePercent ? ['Delegation fee', `${t.delegationFeePercent}%`] : null,
    t.rewardAddresses ? ['Reward addresses', t.rewardAddresses.map((a) => html`${addressLink(a)} `)] : null,
    t.estimatedReward ? ['Estimated reward', navax(t.estimatedReward)] : null,
    t.blsCredentials ? ['BLS public key', id(t.blsCredentials.publicKey)] : null,
    t.blockchainInfo ? ['Blockchain created', html`<a href="${chainHref(t.blockchainInfo.blockchainId)}">${t.blockchainInfo.blockchainId}</a>`] : null,
    t.assetCreated ? ['Asset created', html`${t.assetCreated.name} (${t.assetCreated.symbol}), denomination ${t.assetCreated.denomination} <span class="mono muted">${t.assetCreated.assetId}</span>`] : null,
    t.l1ValidatorManagerDetails ? ['Validator manager', html`${addressLink(t.l1ValidatorManagerDetails.contractAddress)} on ${chainLabel(chainOf(t.l1ValidatorManagerDetails.blockchainId), t.l1ValidatorManagerDetails.blockchainId)}`] : null,
    ['Memo', memo ? html`<span id="tx-memo">${memo}</span>` : t.memo ? html`<span class="mono">${t.memo}</span>` : html`<span class="muted">none</span>`],
  ])}</section>
${t.l1ValidatorDetails && t.l1ValidatorDetails.length ? html`<section class="card"><h2>L1 validators</h2>${table([
    ['Validation ID', (v) => id(v.validationId)], ['Node', (v) => html`<span class="mono">${v.nodeId}</span>`],
    ['Weight', (v) => num(v.weight), 'num'], ['Balance', (v) => navax(v.remainingBalance ?? v.balance ?? 0), 'num'],
  ], t.l1ValidatorDetails)}</section>` : ''}
${t.evmInputs ? html`<section class="card"><h2>EVM inputs</h2>${table([
    ['From', (i) => addressLink(i.fromAddress)], ['Amount', (i) => asset(i.asset), 'num']], t.evmInputs)}</section>` : ''}
${t.consumedUtxos ? html`<section class="card" id="inputs"><h2>Inputs (${t.consumedUtxos.length})</h2>${utxoTable(t.consumedUtxos, prefixed, chainOf, 'in')}</section>` : ''}
${t.emittedUtxos ? html`<section class="card" id="outputs"><h2>Outputs (${t.emittedUtxos.length})</h2>${utxoTable(t.emittedUtxos, prefixed, chainOf, 'out')}</section>` : ''}
${t.evmOutputs ? html`<section class="card"><h2>EVM outputs</h2>${table([
    ['To', (o) => addressLink(o.toAddress)], ['Amount', (o) => asset(o.asset), 'num']], t.evmOutputs)}</section>` : ''}`);
}

function chainLabel(c, bid) {
  return c ? html`<a href="${chainHref(c.key)}">${c.name}</a> <span class="muted mono">${short(bid)}</span>` : html`<span class="mono">${bid}</span>`;
}

// The other half of an atomic move: an import's inputs were made by an export on the source chain;
// an export's outputs are spent by an import on the destination chain.
function atomicCounterpart(t, chainOf) {
  const out = new Map();
  if (t.txType === 'ImportTx') {
    for (const u of t.consumedUtxos || []) {
      const c = chainOf(u.createdOnChainId);
      const made = u.txHash || u.creationTxHash;
      if (made && u.createdOnChainId !== u.consumedOnChainId) out.set(made, `export on ${c ? c.name : u.createdOnChainId}`);
    }
  }
  if (t.txType === 'ExportTx') {
    for (const u of t.emittedUtxos || []) {
      const c = chainOf(u.consumedOnChainId);
      if (u.consumingTxHash && u.createdOnChainId !== u.consumedOnChainId) out.set(u.consumingTxHash, `import on ${c ? c.name : u.consumedOnChainId}`);
    }
  }
  return [...out].map(([txId, label]) => [label, txId]);
}

function utxoTable(utxos, prefixed, chainOf, side) {
  return table([
    ['UTXO', (u) => id(u.utxoId)],
    side === 'in' ? ['Made by', (u) => txLink(u.txHash || u.creationTxHash)] : ['Spent by', (u) => (u.consumingTxHash ? txLink(u.consumingTxHash) : html`<span class="muted">unspent</span>`)],
    ['Owners', (u) => html`${u.addresses.map((a) => html`${addressLink(prefixed(a, u.consumedOnChainId || u.createdOnChainId))} `)}${u.threshold > 1 ? html`<span class="muted">(${u.threshold} of ${u.addresses.length})</span>` : ''}`],
    ['Amount', (u) => asset(u.asset), 'num'],
    ['Kind', (u) => html`${u.utxoType}${u.staked ? ' (staked)' : ''}${(u.platformLocktime || u.locktime) ? html` <span class="muted">locked until ${new Date(1000 * (u.platformLocktime || u.locktime)).toISOString().slice(0, 10)}</span>` : ''}`],
    side === 'out' ? ['Goes to', (u) => (u.consumedOnChainId && u.consumedOnChainId !== u.createdOnChainId ? (chainOf(u.consumedOnChainId) || { name: u.consumedOnChainId }).name : '')] : null,
  ].filter(Boolean), utxos);
}
