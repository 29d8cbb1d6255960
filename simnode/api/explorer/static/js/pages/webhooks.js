// /explorer/webhooks: the Webhooks API's webhooks (GET /v1/webhooks), each with its recent
// deliveries and their attempts (status, latency, next retry), read through the node's
// simnode.getWebhooks; a "Send a test event" button per address_activity webhook. The page reads
// itself again every 2 s while open, so retries show as they happen.

import { get, simnode } from '../api.js';
import { html, kv, num, short, table, statusBadge, when } from '../format.js';

const REFRESH_MS = 2000;

function attempt([atMs, status, latencyMs]) {
  const ok = typeof status === 'number' && status >= 200 && status < 300;
  return html`<li>${statusBadge(ok, String(status))} <span class="muted">${when(Math.floor(atMs / 1000))}, ${latencyMs} ms</span></li>`;
}

function deliveryStatus(d) {
  const ok = d.status === 'delivered' ? true : d.status === 'failed' ? false : null;
  return html`<span class="webhook-delivery" data-status="${d.status}">${statusBadge(ok, d.status)}</span>`;
}

function nextRetry(d) {
  if (!d.nextRetryMs || d.status === 'delivered' || d.status === 'failed') return html`<span class="muted">–</span>`;
  const s = Math.max(0, (d.nextRetryMs - Date.now()) / 1000);
  return html`in ${s.toFixed(1)} s`;
}

function webhookCard(w, listed) {
  const test = w.eventType === 'address_activity'
    ? html`<button type="button" class="webhook-test" data-webhook="${w.id}">Send a test event</button>` : '';
  const meta = listed ? listed.metadata : {};
  const watched = (meta.addresses || meta.keys || []).length;
  return html`<section class="card webhook" data-webhook="${w.id}">
<h2>${w.name || short(w.id)} ${statusBadge(w.status === 'active', w.status)} ${test}</h2>
${kv([
    ['ID', html`<span class="mono">${w.id}</span>`],
    ['URL', html`<span class="mono">${w.url}</span>`],
    ['Event', w.eventType], ['Chain', html`<span class="mono">${w.chainId}</span>`],
    ['Watching', `${num(watched)} key(s)`], ['Created', when(w.createdAt)],
  ])}
${table([
    ['Message', (d) => html`<span class="mono" title="${d.messageId}">${short(d.messageId)}</span>`],
    ['About', (d) => html`<span class="mono">${short(d.label, 18, 6)}</span>`],
    ['Status', deliveryStatus],
    ['Attempts', (d) => (d.attempts.length ? html`<ol class="attempts">${d.attempts.map(attempt)}</ol>` : html`<span class="muted">none yet</span>`)],
    ['Next retry', nextRetry],
  ], w.deliveries, 'No deliveries yet.')}
</section>`;
}

export async function render(ctx) {
  ctx.title('Webhooks');
  async function draw() {
    const [state, listed] = await Promise.all([simnode('getWebhooks'), get('/v1/webhooks', { pageSize: 100 }, ctx.signal)]);
    const byId = new Map(listed.webhooks.map((w) => [w.id, w]));
    ctx.set(html`<h1>Webhooks</h1>
<section class="card">${kv([
      ['Deliveries', html`<span id="webhooks-paused">${state.paused ? 'paused' : 'running'}</span> <span class="muted">(pause and resume them in the dev panel)</span>`],
      ['Waiting', html`<span id="webhooks-queued">${num(state.queued)}</span>`],
      ['Delivered since start', num(state.delivered)], ['Given up since start', num(state.givenUp)],
    ])}<p class="muted">Create webhooks with the Webhooks API (POST /v1/webhooks); every delivery is signed with the shared secret (header x-signature).</p></section>
${state.webhooks.length ? state.webhooks.map((w) => webhookCard(w, byId.get(w.id))) : html`<section class="card"><p class="muted">No webhooks yet.</p></section>`}
<p id="webhook-status" class="dev-status" role="status"></p>`);
  }
  await draw();
  const timer = setInterval(() => { if (ctx.live) draw().catch(() => {}); }, REFRESH_MS);
  ctx.onCleanup(() => clearInterval(timer));
  const onClick = async (ev) => {
    const btn = ev.target.closest('button.webhook-test');
    if (!btn) return;
    btn.disabled = true;
    try {
      const r = await simnode('sendTestWebhookEvent', { id: btn.dataset.webhook });
      await draw();
      document.getElementById('webhook-status').textContent = `Test event ${r.messageId} queued`;
    } catch (err) {
      const s = document.getElementById('webhook-status');
      s.textContent = err.message;
      s.classList.add('error');
    } finally {
      btn.disabled = false;
    }
  };
  document.getElementById('app').addEventListener('click', onClick);
  ctx.onCleanup(() => document.getElementById('app').removeEventListener('click', onClick));
}
