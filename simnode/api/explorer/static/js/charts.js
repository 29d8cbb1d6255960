// Charts with the vendored uPlot (static/vendor/uplot), loaded on the first chart.

let loading = null;

export function loadUPlot() {
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const css = document.createElement('link');
      css.rel = 'stylesheet';
      css.href = new URL('../vendor/uplot/uPlot.min.css', import.meta.url).href;
      document.head.append(css);
      const s = document.createElement('script');
      s.src = new URL('../vendor/uplot/uPlot.iife.min.js', import.meta.url).href;
      s.onload = () => resolve(window.uPlot);
      s.onerror = () => reject(new Error('could not load uPlot'));
      document.head.append(s);
    });
  }
  return loading;
}

export function compact(v) {
  const a = Math.abs(v);
  for (const [size, unit] of [[1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']]) {
    if (a >= size) return `${+(v / size).toFixed(1)}${unit}`;
  }
  return `${+v.toFixed(2)}`;
}

// A bar chart of [{timestamp, value}] in `el` (its width; follows resizes until cleanup).
export async function barChart(el, points, { label, onCleanup, range, height = 200 }) {
  const uPlot = await loadUPlot();
  const sorted = [...points].sort((a, b) => a.timestamp - b.timestamp);
  const data = [sorted.map((p) => p.timestamp), sorted.map((p) => Number(p.value))];
  el.innerHTML = '';
  el.dataset.points = String(sorted.length);
  if (!sorted.length) {
    el.innerHTML = '<p class="empty">No data in this range.</p>';
    return null;
  }
  const styles = getComputedStyle(document.documentElement);
  const axis = { stroke: styles.getPropertyValue('--muted').trim(), grid: { stroke: styles.getPropertyValue('--line').trim() } };
  const plot = new uPlot({
    width: Math.max(el.clientWidth, 200),
    height,
    legend: { show: true },
    scales: { x: range ? { time: true, range: () => range } : { time: true }, y: { range: (u, min, max) => [0, Math.max(max, 1) * 1.1] } },
    axes: [axis, { ...axis, values: (u, ticks) => ticks.map(compact), size: 60 }],
    series: [
      { value: (u, v) => (v == null ? '–' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
      { label, stroke: '#e84142', fill: 'rgba(232, 65, 66, 0.25)', paths: uPlot.paths.bars({ size: [0.7, 40] }),
        value: (u, v) => (v == null ? '–' : v.toLocaleString('en-US')) },
    ],
  }, data, el);
  const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
  ro.observe(el);
  if (onCleanup) onCleanup(() => { ro.disconnect(); plot.destroy(); });
  return plot;
}
