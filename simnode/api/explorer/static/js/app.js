// The explorer's shell: a router over the page routes the server inlined (routes.json), links and
// the search box handled in place (history API: every page is a real URL), the node's clock in the
// header, copy buttons, and the dev panel.

import { html, refreshTimes } from './format.js';
import { clockReady, refreshClock } from './clock.js';
import { setupDevPanel } from './dev.js';

const ROUTES = JSON.parse(document.getElementById('routes').textContent);
const PATTERNS = Object.entries(ROUTES).map(([name, template]) => {
  const names = [];
  const source = template.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : '\\' + c))
    .replace(/\{(\w+)\}/g, (_, n) => { names.push(n); return '([^/]+)'; });
  return { name, names, re: new RegExp(`^${source}$`) };
});

// page name -> [module under pages/, exported render function]
const PAGES = {
  overview: ['overview', 'render'], chain: ['chain', 'render'], block: ['block', 'render'], tx: ['tx', 'render'],
  address: ['address', 'render'], validators: ['validators', 'renderList'], validator: ['validators', 'renderOne'],
  subnets: ['subnets', 'renderList'], subnet: ['subnets', 'renderOne'], icm: ['icm', 'renderList'],
  icmMessage: ['icm', 'renderOne'], metrics: ['metrics', 'render'], search: ['search', 'render'],
  webhooks: ['webhooks', 'render'],
  notfound: ['notfound', 'render'],
};

const main = document.getElementById('app');
let current = null; // {controller, cleanups}

function matchRoute(pathname) {
  for (const p of PATTERNS) {
    const m = p.re.exec(pathname);
    if (m) {
      const params = {};
      p.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]); });
      return { name: p.name, params };
    }
  }
  return null;
}

function setActiveNav(pathname) {
  for (const a of document.querySelectorAll('.nav a')) {
    const href = a.getAttribute('href');
    const active = href === '/explorer/' ? pathname === href : pathname.startsWith(href);
    a.classList.toggle('active', active);
  }
}

export async function show(url, { keepScroll = false } = {}) {
  const started = performance.now();
  if (current) {
    current.controller.abort();
    current.cleanups.forEach((fn) => fn());
  }
  const state = { controller: new AbortController(), cleanups: [] };
  current = state;
  const route = matchRoute(url.pathname) || { name: 'notfound', params: {} };
  const [file, fn] = PAGES[route.name];
  setActiveNav(url.pathname);
  main.dataset.state = 'loading';
  main.dataset.page = route.name;
  const ctx = {
    params: route.params,
    query: url.searchParams,
    url,
    signal: state.controller.signal,
    // a page renders by calling ctx.set (more than once as its parts arrive, if it wants)
    set(markup) { if (current === state) main.innerHTML = String(markup); },
    title(t) { document.title = `${t} · simnode explorer`; },
    onCleanup(f) { state.cleanups.push(f); },
    navigate,
    reload: () => show(new URL(location.href), { keepScroll: true }),
    get live() { return current === state; },
  };
  try {
    const mod = await import(`./pages/${file}.js`);
    await mod[fn](ctx);
    await clockReady().catch(() => {});
    if (current !== state) return;
    refreshTimes(main);
    main.dataset.state = 'ready';
    main.dataset.renderMs = String(Math.round(performance.now() - started));
    performance.mark('explorer-ready', { detail: { page: route.name } });
  } catch (err) {
    if (current !== state || err.name === 'AbortError') return;
    console.warn('explorer: page failed', err);
    main.innerHTML = String(html`<div class="card"><h1>Could not load this page</h1><p class="error">${err.message}</p></div>`);
    main.dataset.state = 'error';
  }
  if (!keepScroll) window.scrollTo(0, 0);
}

export function navigate(href, { replace = false } = {}) {
  const url = new URL(href, location.href);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  return show(url);
}

function isExplorerLink(a) {
  if (!a || a.target || a.hasAttribute('download') || a.dataset.external !== undefined) return false;
  const url = new URL(a.href, location.href);
  return url.origin === location.origin && url.pathname.startsWith('/explorer/') && !url.pathname.startsWith('/explorer/static/');
}

document.addEventListener('click', (ev) => {
  const copy = ev.target.closest('button.copy');
  if (copy) {
    copyText(copy.dataset.copy).then(() => {
      copy.classList.add('done');
      copy.textContent = 'copied';
      setTimeout(() => { copy.classList.remove('done'); copy.textContent = 'copy'; }, 1200);
    });
    return;
  }
  const a = ev.target.closest('a');
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  if (!isExplorerLink(a)) return;
  ev.preventDefault();
  navigate(a.href);
});

document.addEventListener('submit', (ev) => {
  const form = ev.target;
  if (!form.matches('form.search')) return;
  ev.preventDefault();
  const q = new FormData(form).get('q').toString().trim();
  if (q) navigate(`/explorer/search?q=${encodeURIComponent(q)}`);
});

window.addEventListener('popstate', () => show(new URL(location.href), { keepScroll: true }));

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return; } catch { /* not allowed: the fallback below */ }
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.append(ta);
  ta.select();
  document.execCommand('copy');
  ta.remove();
}

// ------------------------------------------------------------------ the node's clock

const CLOCK_POLL_MS = 2000;
setInterval(() => { if (document.visibilityState === 'visible') refreshClock().catch(() => {}); }, CLOCK_POLL_MS);

setupDevPanel({ refreshClock, reload: () => show(new URL(location.href), { keepScroll: true }) });
// the first page and the clock load together; relative times wait for the clock
clockReady().catch((err) => { document.getElementById('node-time').textContent = err.message; });
show(new URL(location.href));
