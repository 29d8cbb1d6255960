// Formatting: HTML built from tagged templates (every interpolation escaped unless it is markup made
// here), amounts with units, node-relative times, shortened IDs with copy buttons.

class Markup {
  constructor(s) { this.s = s; }
  toString() { return this.s; }
}

export function esc(v) {
  return String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function piece(v) {
  if (v === undefined || v === null || v === false) return '';
  if (v instanceof Markup) return v.s;
  if (Array.isArray(v)) return v.map(piece).join('');
  return esc(v);
}

// html`<b>${x}</b>`: x is escaped; arrays are joined; Markup is kept.
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Markup(out);
}

// ------------------------------------------------------------------ amounts

const GROUP = /\B(?=(\d{3})+(?!\d))/g;

// An integer amount of base units (string or bigint) as a decimal string of whole units, exact.
export function units(value, decimals) {
  let v = BigInt(value);
  const neg = v < 0n;
  if (neg) v = -v;
  const base = 10n ** BigInt(decimals);
  const whole = (v / base).toString().replace(GROUP, ',');
  let frac = decimals ? (v % base).toString().padStart(decimals, '0').replace(/0+$/, '') : '';
  return (neg ? '-' : '') + whole + (frac ? '.' + frac : '');
}

// An amount element: the exact value in whole units with its symbol; the base units in data-raw.
export function amount(value, decimals = 18, symbol = 'AVAX') {
  if (value === undefined || value === null || value === '') return html`<span class="muted">–</span>`;
  return html`<span class="amount" data-raw="${BigInt(value).toString()}" data-decimals="${decimals}" title="${BigInt(value).toString()} base units">${units(value, decimals)} ${symbol}</span>`;
}

export const navaxAmount = (n) => amount(n, 9, 'AVAX'); // P/X amounts (nAVAX)

// A P/X amount shown in nAVAX when it is below a milli-AVAX (fees), else in AVAX.
export function navax(n) {
  const v = BigInt(n);
  return v !== 0n && v < 1000000n ? amount(v, 0, 'nAVAX') : amount(v, 9, 'AVAX');
}

export function gwei(wei) {
  if (wei === undefined || wei === null) return html`<span class="muted">–</span>`;
  return html`<span class="amount" data-raw="${BigInt(wei).toString()}" title="${BigInt(wei).toString()} wei">${units(wei, 9)} gwei</span>`;
}

// An amount of an asset of the primary network's answers ({amount, denomination, symbol}).
export function asset(a) {
  return amount(a.amount, a.denomination ?? 0, a.symbol || a.assetId);
}

export function num(v) {
  if (v === undefined || v === null || v === '') return '–';
  return String(v).replace(GROUP, ',');
}

export function percent(v, digits = 2) {
  if (v === undefined || v === null || v === '') return '–';
  return `${Number(v).toFixed(digits)}%`;
}

// ------------------------------------------------------------------ time (relative to the node's clock)

let clockOffset = 0; // node time - browser time, seconds (a virtual clock can be anywhere)

export function setNodeTime(unixSeconds) {
  clockOffset = unixSeconds - Date.now() / 1000;
}

export const nodeNow = () => Date.now() / 1000 + clockOffset;

export function duration(seconds) {
  let s = Math.abs(Math.round(seconds));
  if (s < 60) return `${s} s`;
  const parts = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60]]) {
    if (s >= size) { parts.push(`${Math.floor(s / size)} ${unit}`); s %= size; }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

export function relative(unixSeconds) {
  const d = nodeNow() - Number(unixSeconds);
  if (Math.abs(d) < 1) return 'just now';
  return d > 0 ? `${duration(d)} ago` : `in ${duration(d)}`;
}

export function isoTime(unixSeconds) {
  return new Date(Number(unixSeconds) * 1000).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, ' UTC');
}

// Relative time with the absolute one in the title (lists).
export function ago(unixSeconds) {
  if (unixSeconds === undefined || unixSeconds === null) return html`<span class="muted">–</span>`;
  return html`<time data-ts="${unixSeconds}" datetime="${new Date(Number(unixSeconds) * 1000).toISOString()}" title="${isoTime(unixSeconds)}">${relative(unixSeconds)}</time>`;
}

// Absolute and relative (detail pages).
export function when(unixSeconds) {
  if (unixSeconds === undefined || unixSeconds === null) return html`<span class="muted">–</span>`;
  return html`${isoTime(unixSeconds)} <span class="muted">(${ago(unixSeconds)})</span>`;
}

// Update every relative time on the page (after the node's time moved).
export function refreshTimes(root = document) {
  for (const t of root.querySelectorAll('time[data-ts]')) t.textContent = relative(t.dataset.ts);
}

// ------------------------------------------------------------------ IDs and links

export function short(id, head = 8, tail = 6) {
  const s = String(id);
  return s.length <= head + tail + 1 ? s : `${s.slice(0, head)}…${s.slice(-tail)}`;
}

export function copyButton(text) {
  return html`<button type="button" class="copy" data-copy="${text}" title="Copy" aria-label="Copy ${text}">copy</button>`;
}

// A shortened ID (full in the title), optionally a link, with a copy button.
export function id(text, href, opts = {}) {
  if (text === undefined || text === null || text === '') return html`<span class="muted">–</span>`;
  const label = opts.full ? text : short(text, opts.head, opts.tail);
  const inner = href ? html`<a href="${href}" title="${text}">${label}</a>` : html`<span title="${text}">${label}</span>`;
  return html`<span class="id mono${opts.full ? ' full' : ''}">${inner}${copyButton(text)}</span>`;
}

export const enc = encodeURIComponent;
export const txHref = (tx) => `/explorer/tx/${enc(tx)}`;
export const addressHref = (a) => `/explorer/address/${enc(a)}`;
export const blockHref = (chainKey, block) => `/explorer/block/${enc(chainKey)}/${enc(block)}`;
export const chainHref = (chainKey) => `/explorer/chain/${enc(chainKey)}`;

export const txLink = (tx, opts) => id(tx, txHref(tx), opts);
export const addressLink = (a, opts) => id(a, addressHref(a), opts);
export const blockLink = (chainKey, block, label) =>
  html`<a href="${blockHref(chainKey, block)}">${label ?? num(block)}</a>`;

export function kv(rows) {
  return html`<dl class="kv">${rows.filter(Boolean).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

// A table: columns [[header, cell(row), 'num'?]]; rows; an empty message.
export function table(columns, rows, empty = 'Nothing yet.') {
  if (!rows.length) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap"><table><thead><tr>${columns.map(([h, , cls]) => html`<th class="${cls || ''}">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${columns.map(([, cell, cls]) => html`<td class="${cls || ''}">${cell(r)}</td>`)}</tr>`)}</tbody></table></div>`;
}

export function statusBadge(ok, label) {
  return html`<span class="${ok === true ? 'status-ok' : ok === false ? 'status-bad' : 'status-wait'}">${label}</span>`;
}

export function hexToUtf8(hex) {
  const clean = String(hex).replace(/^0x/, '');
  if (!clean) return '';
  const bytes = new Uint8Array(clean.match(/../g).map((b) => parseInt(b, 16)));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
