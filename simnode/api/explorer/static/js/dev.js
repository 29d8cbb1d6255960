// The dev panel: mine blocks, advance the node's time, take a snapshot and revert to it, switch the
// in-process ICM relayer, pause and resume webhook deliveries, through the node's own /ext/simnode methods; the page is read again after
// each action so its effect shows.

import { simnode } from './api.js';
import { html, isoTime } from './format.js';

const SNAPSHOTS_KEY = 'simnode-explorer-snapshots';
const OPEN_KEY = 'simnode-explorer-dev-open';

function snapshots() {
  try { return JSON.parse(sessionStorage.getItem(SNAPSHOTS_KEY) || '[]'); } catch { return []; }
}

function saveSnapshots(list) {
  sessionStorage.setItem(SNAPSHOTS_KEY, JSON.stringify(list));
}

export function setupDevPanel({ refreshClock, reload }) {
  const panel = document.getElementById('dev-panel');
  const toggle = document.getElementById('dev-toggle');
  const status = document.getElementById('dev-status');
  const relayerState = document.getElementById('relayer-state');
  const webhooksState = document.getElementById('webhooks-state');
  const snapList = document.getElementById('snapshots');
  let relayerOn = null;
  let webhooksPaused = null;

  function setOpen(open) {
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    localStorage.setItem(OPEN_KEY, open ? '1' : '');
    if (open) showRelayer().catch(() => {});
    if (open) showWebhooks().catch(() => {});
  }

  function say(text, isError = false) {
    status.textContent = text;
    status.classList.toggle('error', isError);
  }

  async function showRelayer() {
    const r = await simnode('getRelayer');
    relayerOn = r.enabled;
    relayerState.textContent = `${r.enabled ? 'on' : 'off'}, ${r.pending.length} pending`;
    relayerState.dataset.enabled = String(r.enabled);
  }

  async function showWebhooks() {
    const w = await simnode('getWebhooks');
    webhooksPaused = w.paused;
    webhooksState.textContent = `${w.paused ? 'paused' : 'running'}, ${w.queued} waiting`;
    webhooksState.dataset.paused = String(w.paused);
  }

  function showSnapshots() {
    snapList.innerHTML = String(html`${snapshots().map((s) => html`<span class="snap"><button type="button" data-revert="${s.id}" title="taken at ${isoTime(s.time)}">Revert to #${s.id}</button></span>`)}`);
  }

  // the page is read again first, so the message shows once the effect does
  async function after(message) {
    await Promise.all([refreshClock(), showRelayer(), showWebhooks()]);
    await reload();
    say(message);
  }

  const actions = {
    async mine(form) {
      const n = Number(new FormData(form).get('blocks')) || 1;
      const r = await simnode('mine', { blocks: String(n) });
      const built = Object.entries(r.blocks).map(([c, k]) => `${c} ${k}`).join(', ');
      await after(`Mined: ${built}`);
    },
    async advance(form) {
      const fd = new FormData(form);
      const seconds = Math.round(Number(fd.get('amount')) * Number(fd.get('unit')));
      const r = await simnode('advanceTime', { seconds: String(seconds) });
      await after(`Advanced ${seconds} s: node time is ${isoTime(Number(r.timestamp))}`);
    },
    async snapshot() {
      const [r, t] = await Promise.all([simnode('snapshot'), simnode('getTime')]);
      saveSnapshots([...snapshots(), { id: r.id, time: Number(t.timestamp) }]);
      showSnapshots();
      say(`Snapshot #${r.id} taken`);
    },
    async relayer() {
      if (relayerOn === null) await showRelayer();
      const r = await simnode('setRelayer', { enabled: !relayerOn });
      await after(`Relayer switched ${r.enabled ? 'on' : 'off'}`);
    },
    async webhooks() {
      if (webhooksPaused === null) await showWebhooks();
      const r = await simnode('setWebhookDelivery', { paused: !webhooksPaused });
      await after(`Webhook deliveries ${r.paused ? 'paused' : 'resumed'}`);
    },
  };

  panel.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const form = ev.target;
    const action = actions[form.dataset.action];
    if (!action) return;
    const buttons = form.querySelectorAll('button');
    buttons.forEach((b) => { b.disabled = true; });
    try {
      await action(form);
    } catch (err) {
      say(err.message, true);
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
    }
  });

  snapList.addEventListener('click', async (ev) => {
    const btn = ev.target.closest('button[data-revert]');
    if (!btn) return;
    ev.preventDefault();
    const id = btn.dataset.revert;
    try {
      await simnode('revert', { id });
      // a revert consumes that snapshot and every later one
      const list = snapshots();
      saveSnapshots(list.slice(0, list.findIndex((s) => s.id === id)));
      showSnapshots();
      await after(`Reverted to snapshot #${id}`);
    } catch (err) {
      say(err.message, true);
    }
  });

  toggle.addEventListener('click', () => setOpen(panel.hidden));
  showSnapshots();
  if (localStorage.getItem(OPEN_KEY)) setOpen(true);
}
