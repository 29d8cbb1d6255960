// /explorer/: every chain with its head, the latest blocks and transactions across chains (live:
// a new head on any chain reloads what changed), staking totals, and network activity charts from
// the Metrics API.

import { get, PRIMARY, query } from '../api.js';
import { chains, primaryPath } from '../chains.js';
import { html, num, navaxAmount, ago, blockLink, id, txHref, addressLink, chainHref, table, statusBadge, refreshTimes, nodeNow } from '../format.js';
import { watchHeads } from '../live.js';
import { barChart, loadUPlot } from '../charts.js';
import { latestTxs } from './common.js';
import { clockReady } from '../clock.js';

const BLOCKS_PER_CHAIN = 5;
const LATEST = 10;
const REFRESH_MS = 500; // a burst of heads reloads at most this often
const METRICS = [['txCount', 'Transactions'], ['activeAddresses', 'Active addresses'], ['gasUsed', 'Gas used']];
const RANGES = { hour: 48 * 3600, day: 30 * 86400 };

async function chainBlocks(chain, signal) {
  const path = chain.kind === 'evm' ? `/v1/chains/${chain.evmChainId}/blocks` : `${primaryPath(chain.dataChain)}/blocks`;
  const page = await get(path, { pageSize: BLOCKS_PER_CHAIN }, signal);
  return page.blocks.map((b) => ({ chain, number: b.blockNumber, hash: b.blockHash, time: b.blockTimestamp, txCount: b.txCount }));
}

function chainCard(chain, blocks) {
  const head = blocks[0];
  return html`<div class="card chain-card" data-chain="${chain.key}">
<h2><a href="${chainHref(chain.key)}">${chain.name}</a> <span class="tag">${chain.kind === 'evm' ? `EVM ${chain.evmChainId}` : chain.key}</span></h2>
${head ? html`<div class="stat"><span class="label">Head</span> <span class="value head" data-height="${head.number}">${blockLink(chain.key, head.number, `#${num(head.number)}`)}</span></div>
<div class="muted">${ago(head.time)} · ${num(head.txCount)} tx</div>` : html`<p class="empty">No blocks yet.</p>`}
</div>`;
}

function blocksTable(rows) {
  return table([
    ['Chain', (b) => html`<a href="${chainHref(b.chain.key)}">${b.chain.name}</a>`],
    ['Block', (b) => blockLink(b.chain.key, b.number, `#${num(b.number)}`)],
    ['Hash', (b) => id(b.hash)],
    ['Txs', (b) => num(b.txCount), 'num'],
    ['Time', (b) => ago(b.time)],
  ], rows, 'No blocks yet.');
}

function txsTable(rows) {
  return table([
    ['Chain', (t) => html`<a href="${chainHref(t.chain.key)}">${t.chain.name}</a>`],
    ['Tx', (t) => id(t.id, txHref(t.id))],
    ['Type', (t) => html`${t.type}${t.failed ? html` ${statusBadge(false, 'failed')}` : ''}`],
    ['From', (t) => (t.from ? addressLink(t.from) : '')],
    ['Value', (t) => t.value, 'num'],
    ['Time', (t) => ago(t.time)],
  ], rows, 'No transactions yet.');
}

export async function render(ctx) {
  ctx.title('Overview');
  const interval = ctx.query.get('interval') === 'day' ? 'day' : 'hour';
  // everything at once: what needs the chain list starts as soon as it is there
  loadUPlot().catch(() => {});
  const network = get(PRIMARY, {}, ctx.signal);
  const list = await chains();
  const evm = list.filter((c) => c.kind === 'evm');
  const metricsChain = evm.find((c) => c.key === ctx.query.get('chart')) || evm[0];
  const series = metricsChain ? fetchMetrics(ctx, metricsChain, interval) : null;
  const blocks = new Map();

  const [details, perChain, txs] = await Promise.all([
    network,
    Promise.all(list.map((c) => chainBlocks(c, ctx.signal))),
    latestTxs(list, LATEST, ctx.signal),
  ]);
  list.forEach((c, i) => blocks.set(c.key, perChain[i]));
  const v = details.validatorDetails;
  const d = details.delegatorDetails;

  const liveSection = (all, txRows) => {
    const latest = [...blocks.values()].flat().sort((a, b) => b.time - a.time || a.chain.key.localeCompare(b.chain.key)).slice(0, LATEST);
    return html`<div class="cards">${all.map((c) => chainCard(c, blocks.get(c.key) || []))}</div>
<div class="grid">
  <section class="card"><h2>Latest blocks</h2><div id="latest-blocks">${blocksTable(latest)}</div></section>
  <section class="card"><h2>Latest transactions</h2><div id="latest-txs">${txsTable(txRows)}</div></section>
</div>`;
  };

  const chartTabs = html`<div class="tabs">${['hour', 'day'].map((i) => html`<a href="/explorer/${query({ interval: i, chart: metricsChain ? metricsChain.key : undefined })}" class="${i === interval ? 'active' : ''}">per ${i}</a>`)}
${evm.length > 1 ? evm.map((c) => html`<a href="/explorer/${query({ interval, chart: c.key })}" class="${c === metricsChain ? 'active' : ''}">${c.name}</a>`) : ''}</div>`;

  ctx.set(html`<h1>Overview</h1>
<div class="cards">
  <div class="card stat"><div class="label">Validators</div><div class="value" id="validator-count">${num(v.validatorCount)}</div></div>
  <div class="card stat"><div class="label">Total stake</div><div class="value" id="total-stake">${navaxAmount(v.totalAmountStaked)}</div></div>
  <div class="card stat"><div class="label">Delegators</div><div class="value">${num(d.delegatorCount)}</div></div>
  <div class="card stat"><div class="label">Chains</div><div class="value">${num(list.length)}</div></div>
</div>
<div id="live">${liveSection(list, txs)}</div>
<section class="card"><h2>Network activity${metricsChain ? html` <span class="tag">${metricsChain.name}, per ${interval}</span>` : ''}</h2>${chartTabs}
<div class="grid">${METRICS.map(([m, label]) => html`<div class="chart-box"><h2>${label}</h2><div class="chart" id="chart-${m}"></div></div>`)}</div>
</section>`);

  if (series) {
    const { range, results } = await series;
    await Promise.all(METRICS.map(([m, label], i) => barChart(document.getElementById(`chart-${m}`), results[i].results, { label, onCleanup: ctx.onCleanup, range })));
  }

  // live: reload the changed chains' blocks and the latest txs, at most every REFRESH_MS
  const dirty = new Set();
  let timer = null;
  const live = document.getElementById('live');
  const refresh = async () => {
    timer = null;
    const keys = [...dirty];
    dirty.clear();
    const all = await chains();
    watcher.add(all);
    const changed = all.filter((c) => keys.includes(c.key) || !blocks.has(c.key));
    const [fresh, txRows] = await Promise.all([Promise.all(changed.map((c) => chainBlocks(c, ctx.signal))), latestTxs(all, LATEST, ctx.signal)]);
    changed.forEach((c, i) => blocks.set(c.key, fresh[i]));
    if (!ctx.live) return;
    const before = new Set([...live.querySelectorAll('#latest-blocks a[href^="/explorer/block/"]')].map((a) => a.getAttribute('href')));
    live.innerHTML = String(liveSection(all, txRows));
    for (const a of live.querySelectorAll('#latest-blocks a[href^="/explorer/block/"]')) {
      if (!before.has(a.getAttribute('href'))) a.closest('tr').classList.add('fresh');
    }
    refreshTimes(live);
  };
  const watcher = watchHeads(list, (key) => {
    dirty.add(key);
    if (!timer) timer = setTimeout(() => refresh().catch((err) => { if (err.name !== 'AbortError') console.warn(err); }), REFRESH_MS);
  }, ctx);
  ctx.onCleanup(() => clearTimeout(timer));
}

async function fetchMetrics(ctx, chain, interval) {
  await clockReady();
  const end = Math.floor(nodeNow());
  const params = { timeInterval: interval, startTimestamp: Math.max(end - RANGES[interval], 0), endTimestamp: end, pageSize: 2160 };
  const results = await Promise.all(METRICS.map(([m]) => get(`/v2/chains/${chain.evmChainId}/metrics/${m}`, params, ctx.signal)));
  return { range: [params.startTimestamp, end], results };
}
