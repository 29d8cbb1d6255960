// /explorer/subnets: every subnet; /explorer/subnets/{subnetId}: its chains, its L1 validators or
// permissioned validators, its conversion to an L1.

import { get, PRIMARY } from '../api.js';
import { chains } from '../chains.js';
import { html, kv, num, navax, when, ago, id, txLink, addressLink, table, chainHref, short } from '../format.js';
import { listPage, pager, notFound } from './common.js';

function chainLinks(blockchains, byId) {
  return blockchains.map((b) => {
    const c = byId.get(b.blockchainId);
    return html`<a href="${chainHref(c ? c.key : b.blockchainId)}">${b.blockchainName}</a> `;
  });
}

export async function renderList(ctx) {
  ctx.title('Subnets');
  const [page, all] = await Promise.all([listPage(ctx, `${PRIMARY}/subnets`, { pageSize: 50 }, 'subnets'), chains()]);
  const byId = new Map(all.map((c) => [c.blockchainId, c]));
  ctx.set(html`<h1>Subnets</h1><section class="card">${table([
    ['Subnet', (s) => html`<span class="id mono"><a href="/explorer/subnets/${s.subnetId}" title="${s.subnetId}">${s.subnetId === all[0].subnetId ? 'Primary Network' : short(s.subnetId)}</a></span>`],
    ['Kind', (s) => (s.isL1 ? html`<span class="tag">L1</span>` : s.subnetId === all[0].subnetId ? 'primary' : 'permissioned')],
    ['Chains', (s) => chainLinks(s.blockchains, byId)],
    ['Created', (s) => ago(s.createBlockTimestamp)],
  ], page.items)}${pager(ctx, page.next, page.first)}</section>`);
}

export async function renderOne(ctx) {
  const subnetId = ctx.params.subnetId;
  ctx.title(`Subnet ${short(subnetId)}`);
  let subnet;
  try {
    subnet = await get(`${PRIMARY}/subnets/${subnetId}`, {}, ctx.signal);
  } catch (err) {
    if (err.status === 400 || err.status === 404) return notFound(ctx, 'Subnet', subnetId);
    throw err;
  }
  const all = await chains();
  const byId = new Map(all.map((c) => [c.blockchainId, c]));
  const primary = subnetId === all[0].subnetId;
  const [l1, permissioned] = await Promise.all([
    subnet.isL1 ? get(`${PRIMARY}/l1Validators`, { subnetId, includeInactiveL1Validators: true, pageSize: 100 }, ctx.signal) : null,
    !subnet.isL1 && !primary ? get(`${PRIMARY}/validators`, { subnetId, pageSize: 100 }, ctx.signal) : null,
  ]);
  const owner = subnet.subnetOwnershipInfo;
  const mgr = subnet.l1ValidatorManagerDetails;
  ctx.set(html`<h1>${primary ? 'Primary Network' : subnet.isL1 ? 'L1' : 'Subnet'} <span class="mono">${short(subnetId, 10, 8)}</span></h1>
<section class="card">${kv([
    ['Subnet ID', id(subnetId, null, { full: true })],
    ['Kind', subnet.isL1 ? 'L1 (converted)' : primary ? 'the primary network' : 'permissioned subnet'],
    ['Created', html`${when(subnet.createBlockTimestamp)}${primary ? '' : html` by ${txLink(subnetId)}`}`],
    ['Chains', chainLinks(subnet.blockchains, byId)],
    owner && owner.addresses.length ? ['Owner', html`${owner.addresses.map((a) => html`${addressLink(a)} `)} <span class="muted">threshold ${owner.threshold}</span>`] : null,
    subnet.l1ConversionTransactionHash ? ['Conversion', txLink(subnet.l1ConversionTransactionHash)] : null,
    mgr ? ['Validator manager', html`${addressLink(mgr.contractAddress)} on ${(byId.get(mgr.blockchainId) || { name: mgr.blockchainId }).name}`] : null,
  ])}</section>
${l1 ? html`<section class="card" id="l1-validators"><h2>L1 validators (${l1.validators.length})</h2>${table([
    ['Validation ID', (v) => id(v.validationId)],
    ['Node', (v) => html`<span class="mono" title="${v.nodeId}">${short(v.nodeId, 14, 6)}</span>`],
    ['Weight', (v) => num(v.weight), 'num'],
    ['Balance', (v) => navax(v.remainingBalance), 'num'],
    ['BLS key', (v) => id(v.blsCredentials && v.blsCredentials.publicKey)],
    ['Registered', (v) => ago(v.creationTimestamp)],
    ['', (v) => (v.remainingBalance === 0 || v.remainingBalance === '0' ? html`<span class="muted">inactive</span>` : '')],
  ], l1.validators, 'No L1 validators.')}</section>` : ''}
${permissioned ? html`<section class="card"><h2>Validators (${permissioned.validators.length})</h2>${table([
    ['Node', (v) => html`<span class="mono">${v.nodeId}</span>`], ['Weight', (v) => num(v.amountStaked), 'num'],
    ['Status', (v) => v.validationStatus], ['Start', (v) => ago(v.startTimestamp)], ['End', (v) => ago(v.endTimestamp)],
  ], permissioned.validators, 'No validators.')}</section>` : ''}`);
}
