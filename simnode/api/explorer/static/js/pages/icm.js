// /explorer/icm: ICM messages with their status (pending → delivered), source and destination
// txs and the relayer that delivered them, plus the in-process relayer's state;
// /explorer/icm/{messageId}: one message.

import { get, simnode } from '../api.js';
import { chains } from '../chains.js';
import { html, kv, num, ago, when, id, txLink, addressLink, table, chainHref, statusBadge, short, amount } from '../format.js';
import { listPage, pager, notFound } from './common.js';

function chainName(byId, bid) {
  const c = byId.get(bid);
  return c ? html`<a href="${chainHref(c.key)}">${c.name}</a>` : html`<span class="mono" title="${bid}">${short(bid)}</span>`;
}

function status(m) {
  return html`<span class="icm-status" data-message="${m.messageId}">${statusBadge(m.status === 'delivered' ? true : m.status === 'pending' ? null : false, m.status)}</span>`;
}

export async function renderList(ctx) {
  ctx.title('ICM messages');
  const [page, all, relayer] = await Promise.all([
    listPage(ctx, '/v1/icm/messages', { pageSize: 25 }, 'messages'),
    chains(),
    simnode('getRelayer'),
  ]);
  const byId = new Map(all.map((c) => [c.blockchainId, c]));
  ctx.set(html`<h1>ICM messages</h1>
<section class="card">${kv([
    ['In-process relayer', html`<span id="relayer">${relayer.enabled ? 'on' : 'off'}</span> <span class="muted">(switch it in the dev panel)</span>`],
    ['Relayer account', addressLink(relayer.address, { full: true })],
    ['Waiting for delivery', html`<span id="relayer-pending">${num(relayer.pending.length)}</span>`],
  ])}</section>
<section class="card"><h2>Messages</h2>${table([
    ['Message', (m) => html`<span class="id mono"><a href="/explorer/icm/${m.messageId}" title="${m.messageId}">${short(m.messageId)}</a></span>`],
    ['Status', status],
    ['Route', (m) => html`${chainName(byId, m.sourceBlockchainId)} → ${chainName(byId, m.destinationBlockchainId)}`],
    ['Nonce', (m) => num(m.messageNonce), 'num'],
    ['From', (m) => addressLink(m.from)],
    ['Source tx', (m) => (m.sourceTransaction ? txLink(m.sourceTransaction.txHash) : '–')],
    ['Destination tx', (m) => (m.destinationTransaction ? txLink(m.destinationTransaction.txHash) : html`<span class="muted">–</span>`)],
    ['Relayer', (m) => (m.destinationTransaction && m.destinationTransaction.delivererAddress ? addressLink(m.destinationTransaction.delivererAddress) : '–')],
    ['Sent', (m) => (m.sourceTransaction ? ago(m.sourceTransaction.timestamp) : '–')],
  ], page.items, 'No ICM messages yet.')}${pager(ctx, page.next, page.first)}</section>`);
}

export async function renderOne(ctx) {
  const messageId = ctx.params.messageId;
  ctx.title(`ICM message ${short(messageId)}`);
  let m;
  try {
    m = await get(`/v1/icm/messages/${messageId}`, {}, ctx.signal);
  } catch (err) {
    if (err.status === 400 || err.status === 404) return notFound(ctx, 'ICM message', messageId);
    throw err;
  }
  const byId = new Map((await chains()).map((c) => [c.blockchainId, c]));
  const src = m.sourceTransaction;
  const dst = m.destinationTransaction;
  const fee = m.rewardDetails;
  ctx.set(html`<h1>ICM message</h1>
<section class="card">${kv([
    ['Message ID', id(m.messageId, null, { full: true })],
    ['Status', status(m)],
    ['Source', html`${chainName(byId, m.sourceBlockchainId)} <span class="muted">EVM ${m.sourceEvmChainId || '–'}</span>`],
    ['Destination', html`${chainName(byId, m.destinationBlockchainId)} <span class="muted">EVM ${m.destinationEvmChainId || '–'}</span>`],
    ['Messenger', addressLink(m.icmContractAddress, { full: true })],
    ['Nonce', num(m.messageNonce)],
    ['From', addressLink(m.from, { full: true })],
    ['To', addressLink(m.to, { full: true })],
    ['Sent in', src ? html`${txLink(src.txHash)} ${when(src.timestamp)}` : '–'],
    ['Delivered in', dst ? html`${txLink(dst.txHash)} ${when(dst.timestamp)}` : html`<span class="muted">not yet</span>`],
    dst && dst.delivererAddress ? ['Relayer', addressLink(dst.delivererAddress, { full: true })] : null,
    dst && dst.rewardRedeemer ? ['Reward redeemer', addressLink(dst.rewardRedeemer, { full: true })] : null,
    m.messageExecuted !== undefined ? ['Executed', m.messageExecuted ? 'yes' : 'no'] : null,
    m.receiptDelivered !== undefined ? ['Receipt delivered back', m.receiptDelivered ? 'yes' : 'no'] : null,
    fee ? ['Relayer fee', fee.address && !/^0x0+$/.test(fee.address) ? html`${amount(fee.value, fee.decimals, fee.symbol || short(fee.address))} <span class="muted">${fee.name}</span>` : 'none'] : null,
    ['Data', html`<pre class="data">${m.data || '0x'}</pre>`],
  ])}</section>`);
}
