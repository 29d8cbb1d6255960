// /explorer/validators: the primary network's current and pending validators (weight,
// delegations, remaining time, uptime, BLS key); /explorer/validators/{nodeId}: one node's
// validations (every status) and its delegators.

import { get, PRIMARY, query } from '../api.js';
import { html, kv, num, navaxAmount, percent, when, ago, duration, id, txLink, addressLink, table, nodeNow, short } from '../format.js';
import { listPage, pager, notFound } from './common.js';
import { clockReady } from '../clock.js';

const STATUSES = ['active', 'pending', 'completed'];

function nodeLink(nodeId) {
  return html`<span class="id mono"><a href="/explorer/validators/${nodeId}" title="${nodeId}">${short(nodeId, 14, 6)}</a></span>`;
}

function remaining(v) {
  if (v.validationStatus === 'completed') return html`<span class="muted">ended ${ago(v.endTimestamp)}</span>`;
  if (v.validationStatus === 'pending') return html`starts ${ago(v.startTimestamp)}`;
  return html`<span title="ends ${new Date(v.endTimestamp * 1000).toISOString()}">${duration(v.endTimestamp - nodeNow())}</span>`;
}

function validatorsTable(list) {
  return table([
    ['Node', (v) => nodeLink(v.nodeId)],
    ['Weight', (v) => html`<span class="weight" data-node="${v.nodeId}">${navaxAmount(v.amountStaked)}</span>`, 'num'],
    ['Share', (v) => (v.stakePercentage !== undefined ? percent(v.stakePercentage) : '–'), 'num'],
    ['Delegators', (v) => num(v.delegatorCount ?? 0), 'num'],
    ['Delegated', (v) => (v.amountDelegated !== undefined ? navaxAmount(v.amountDelegated) : '–'), 'num'],
    ['Fee', (v) => (v.delegationFee !== undefined ? `${Number(v.delegationFee)}%` : '–'), 'num'],
    ['Remaining', (v) => remaining(v)],
    ['Uptime', (v) => (v.uptimePerformance !== undefined ? percent(v.uptimePerformance) : '–'), 'num'],
    ['BLS key', (v) => (v.blsCredentials ? id(v.blsCredentials.publicKey) : '–')],
  ], list, 'No validators.');
}

export async function renderList(ctx) {
  ctx.title('Validators');
  await clockReady();
  const status = STATUSES.includes(ctx.query.get('status')) ? ctx.query.get('status') : null;
  const shown = status ? [status] : ['active', 'pending'];
  const [network, ...pages] = await Promise.all([
    get(PRIMARY, {}, ctx.signal),
    ...shown.map((s) => listPage(ctx, `${PRIMARY}/validators`, { validationStatus: s, pageSize: 100 }, 'validators', `${s}Page`)),
  ]);
  const v = network.validatorDetails;
  ctx.set(html`<h1>Validators</h1>
<div class="cards">
  <div class="card stat"><div class="label">Validators</div><div class="value">${num(v.validatorCount)}</div></div>
  <div class="card stat"><div class="label">Total stake</div><div class="value">${navaxAmount(v.totalAmountStaked)}</div></div>
  <div class="card stat"><div class="label">Delegators</div><div class="value">${num(network.delegatorDetails.delegatorCount)}</div></div>
  <div class="card stat"><div class="label">Delegated</div><div class="value">${navaxAmount(network.delegatorDetails.totalAmountStaked)}</div></div>
</div>
<div class="tabs"><a href="/explorer/validators" class="${status ? '' : 'active'}">current and pending</a>${STATUSES.map((s) => html`<a href="/explorer/validators${query({ status: s })}" class="${s === status ? 'active' : ''}">${s}</a>`)}</div>
${shown.map((s, i) => html`<section class="card" id="validators-${s}"><h2>${s[0].toUpperCase() + s.slice(1)} (${pages[i].items.length}${pages[i].next ? '+' : ''})</h2>${validatorsTable(pages[i].items)}${pager(ctx, pages[i].next, pages[i].first, `${s}Page`)}</section>`)}`);
}

export async function renderOne(ctx) {
  const nodeId = ctx.params.nodeId;
  ctx.title(`Validator ${short(nodeId, 14, 6)}`);
  await clockReady();
  let history;
  try {
    history = await get(`${PRIMARY}/validators/${nodeId}`, { pageSize: 100 }, ctx.signal);
  } catch (err) {
    if (err.status === 400 || err.status === 404) return notFound(ctx, 'Validator', nodeId);
    throw err;
  }
  const delegators = await get(`${PRIMARY}/delegators`, { nodeIds: nodeId, pageSize: 100 }, ctx.signal);
  const list = history.validators;
  const current = list.find((v) => v.validationStatus === 'active') || list[0];
  ctx.set(html`<h1>Validator <span class="mono">${nodeId}</span></h1>
${current ? html`<section class="card">${kv([
    ['Node ID', id(nodeId, null, { full: true })],
    ['Status', current.validationStatus],
    ['Weight', html`<span id="validator-weight">${navaxAmount(current.amountStaked)}</span>`],
    ['Period', html`${when(current.startTimestamp)} → ${when(current.endTimestamp)}`],
    current.validationStatus === 'active' ? ['Remaining', duration(current.endTimestamp - nodeNow())] : null,
    ['Delegation fee', current.delegationFee !== undefined ? `${Number(current.delegationFee)}%` : '–'],
    ['Delegators', html`${num(current.delegatorCount ?? 0)}${current.amountDelegated !== undefined ? html` · ${navaxAmount(current.amountDelegated)}` : ''}`],
    current.delegationCapacity !== undefined ? ['Delegation capacity', navaxAmount(current.delegationCapacity)] : null,
    ['Uptime', current.uptimePerformance !== undefined ? percent(current.uptimePerformance) : '–'],
    current.potentialRewards ? ['Potential rewards', html`${navaxAmount(current.potentialRewards.validationRewardAmount)} validation, ${navaxAmount(current.potentialRewards.delegationRewardAmount)} delegation`] : null,
    current.rewards ? ['Rewards', html`${navaxAmount(current.rewards.validationRewardAmount)} validation, ${navaxAmount(current.rewards.delegationRewardAmount)} delegation`] : null,
    current.blsCredentials ? ['BLS public key', id(current.blsCredentials.publicKey, null, { full: true })] : null,
    current.blsCredentials ? ['Proof of possession', id(current.blsCredentials.proofOfPossession)] : null,
    ['Staking tx', txLink(current.txHash)],
    current.avalancheGoVersion ? ['Version', current.avalancheGoVersion] : null,
  ])}</section>` : html`<div class="card"><p class="empty">This node has never validated the primary network.</p></div>`}
<section class="card"><h2>Validations (${list.length})</h2>${table([
    ['Tx', (v) => txLink(v.txHash)], ['Status', (v) => v.validationStatus],
    ['Weight', (v) => navaxAmount(v.amountStaked), 'num'], ['Start', (v) => ago(v.startTimestamp)], ['End', (v) => ago(v.endTimestamp)],
  ], list)}</section>
<section class="card" id="delegators"><h2>Delegators (${delegators.delegators.length})</h2>${table([
    ['Tx', (d) => txLink(d.txHash)], ['Status', (d) => d.delegationStatus],
    ['Amount', (d) => navaxAmount(d.amountDelegated), 'num'],
    ['Reward address', (d) => (d.rewardAddresses || []).map((a) => addressLink(a))],
    ['Start', (d) => ago(d.startTimestamp)], ['End', (d) => ago(d.endTimestamp)],
  ], delegators.delegators, 'No delegators.')}</section>`);
}
