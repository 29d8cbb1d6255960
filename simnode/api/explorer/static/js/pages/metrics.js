// /explorer/metrics: any time series of the Metrics API as a chart: an EVM chain's metrics (with its
// rolling windows), staking, L1 validator fees (all, per subnet, per node, per validation) and ICM
// message counts; with the interval and range chosen. Every choice is in the URL.

import { get, PRIMARY, query } from '../api.js';
import { chains } from '../chains.js';
import { html, num, nodeNow, table } from '../format.js';
import { barChart } from '../charts.js';
import { clockReady } from '../clock.js';

const EVM_METRICS = ['txCount', 'activeAddresses', 'activeSenders', 'gasUsed', 'feesPaid', 'avgTps', 'maxTps', 'avgGps', 'maxGps',
  'avgGasPrice', 'maxGasPrice', 'contracts', 'deployers', 'cumulativeTxCount', 'cumulativeAddresses', 'cumulativeContracts', 'cumulativeDeployers'];
const ROLLING = new Set(['gasUsed', 'txCount', 'avgGps', 'maxGps', 'avgTps', 'maxTps', 'avgGasPrice', 'maxGasPrice', 'feesPaid', 'contracts', 'deployers', 'activeAddresses', 'activeSenders']);

// family -> [label, its metrics, the route, the extra parameter it needs (a select or an input), takes an interval]
const FAMILIES = {
  evm: ['EVM chain', EVM_METRICS, (p) => `/v2/chains/${p.chain}/metrics/${p.metric}`, 'chain', true],
  staking: ['Staking', ['validatorCount', 'validatorWeight', 'delegatorCount', 'delegatorWeight'], (p) => `${PRIMARY.replace('/v1/', '/v2/')}/metrics/${p.metric}`, 'subnetId', false],
  l1: ['L1 validator fees', ['totalValidatorFeesDaily', 'totalCumulativeFeesDaily', 'totalPayingValidatorsDaily'], (p) => `/v2/validators/metrics/${p.metric}`, null, false],
  subnet: ['Per subnet', ['perSubnetDailyFeesPaid', 'perSubnetCumulativeFeesPaid', 'perSubnetPayingValidators'], (p) => `/v2/subnet/${p.subnetId}/metrics/${p.metric}`, 'subnetId', false],
  node: ['Per node', ['perNodeDailyFeesPaid', 'perNodeCumulativeFeesPaid'], (p) => `/v2/validator/${p.nodeId}/metrics/${p.metric}`, 'nodeId', false],
  validation: ['Per L1 validation', ['validationFeesDaily', 'validationCumulativeFeesDaily'], (p) => `/v2/validation/${p.validationId}/metrics/${p.metric}`, 'validationId', false],
  icm: ['ICM messages', ['messages'], () => '/v2/icm/timeseries', null, true],
};
const RANGES = { '24h': 86400, '7d': 7 * 86400, '30d': 30 * 86400, '90d': 90 * 86400, '1y': 365 * 86400, all: null };
const MAX_POINTS = 2160;

export async function render(ctx) {
  ctx.title('Metrics');
  await clockReady();
  const q = ctx.query;
  const family = FAMILIES[q.get('family')] ? q.get('family') : 'evm';
  const [label, metrics, route, extra, hasInterval] = FAMILIES[family];
  const all = await chains();
  const evm = all.filter((c) => c.kind === 'evm');
  const p = {
    metric: metrics.includes(q.get('metric')) ? q.get('metric') : metrics[0],
    chain: (evm.find((c) => c.key === q.get('chain') || c.evmChainId === q.get('chain')) || evm[0]).evmChainId,
    interval: ['hour', 'day', 'week', 'month'].includes(q.get('interval')) ? q.get('interval') : 'day',
    range: q.get('range') in RANGES ? q.get('range') : '30d',
    subnetId: q.get('subnetId') || '', nodeId: q.get('nodeId') || '', validationId: q.get('validationId') || '',
  };
  const end = Math.floor(nodeNow());
  const start = RANGES[p.range] === null ? undefined : Math.max(end - RANGES[p.range], 0);
  const needs = extra && extra !== 'chain' && extra !== 'subnetId' ? extra : null;
  const params = {
    startTimestamp: start, endTimestamp: end, pageSize: MAX_POINTS,
    ...(hasInterval ? { timeInterval: p.interval } : {}),
    ...(family === 'staking' && p.subnetId ? { subnetId: p.subnetId } : {}),
  };

  const form = html`<form class="form-row" id="metrics-form" method="get" action="/explorer/metrics">
<label>Source<select name="family">${Object.entries(FAMILIES).map(([k, f]) => html`<option value="${k}" ${k === family ? 'selected' : ''}>${f[0]}</option>`)}</select></label>
<label>Metric<select name="metric">${metrics.map((m) => html`<option ${m === p.metric ? 'selected' : ''}>${m}</option>`)}</select></label>
${extra === 'chain' ? html`<label>Chain<select name="chain">${evm.map((c) => html`<option value="${c.key}" ${c.evmChainId === p.chain ? 'selected' : ''}>${c.name}</option>`)}</select></label>` : ''}
${extra === 'subnetId' ? html`<label>Subnet ID${family === 'staking' ? ' (optional)' : ''}<input name="subnetId" value="${p.subnetId}" size="40"></label>` : ''}
${extra === 'nodeId' ? html`<label>Node ID<input name="nodeId" value="${p.nodeId}" size="40"></label>` : ''}
${extra === 'validationId' ? html`<label>Validation ID<input name="validationId" value="${p.validationId}" size="40"></label>` : ''}
${hasInterval ? html`<label>Interval<select name="interval">${['hour', 'day', 'week', 'month'].map((i) => html`<option ${i === p.interval ? 'selected' : ''}>${i}</option>`)}</select></label>` : ''}
<label>Range<select name="range">${Object.keys(RANGES).map((r) => html`<option ${r === p.range ? 'selected' : ''}>${r}</option>`)}</select></label>
<button type="submit">Show</button></form>`;

  const missing = (needs && !p[needs]) || (family === 'subnet' && !p.subnetId);
  let series = null;
  let rolling = null;
  let error = null;
  if (!missing) {
    try {
      [series, rolling] = await Promise.all([
        get(route(p), params, ctx.signal),
        family === 'evm' && ROLLING.has(p.metric) ? get(`/v2/chains/${p.chain}/rollingWindowMetrics/${p.metric}`, {}, ctx.signal) : null,
      ]);
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      error = err.message;
    }
  }
  ctx.set(html`<h1>Metrics</h1><section class="card">${form}
<h2>${label}: ${p.metric}${hasInterval ? html` <span class="tag">per ${p.interval}</span>` : ''} <span class="tag">${p.range}</span></h2>
${missing ? html`<p class="empty">Fill in the ${needs || 'subnetId'} above.</p>` : error ? html`<p class="error">${error}</p>` : html`<div class="chart" id="metric-chart"></div>`}
</section>
${rolling ? html`<section class="card"><h2>Rolling windows</h2>
${table([['Window', (r) => r.k], ['Value', (r) => num(r.v), 'num']], Object.entries(rolling.result).map(([k, v]) => ({ k, v })))}</section>` : ''}`);
  const formEl = document.getElementById('metrics-form');
  formEl.addEventListener('change', (ev) => {
    if (ev.target.name === 'family') {
      // another source: its own metric and parameters
      ctx.navigate(`/explorer/metrics${query({ family: ev.target.value, range: p.range })}`);
    } else if (ev.target.tagName === 'SELECT') {
      formEl.requestSubmit();
    }
  });
  formEl.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const fd = Object.fromEntries([...new FormData(formEl)].filter(([, v]) => v !== ''));
    ctx.navigate(`/explorer/metrics${query(fd)}`);
  });
  if (series) {
    await barChart(document.getElementById('metric-chart'), series.results, { label: p.metric, onCleanup: ctx.onCleanup, range: start !== undefined ? [start, end] : undefined, height: 320 });
  }
}
