// report.ts (webview): draws the report the extension posts (ReportData): a log-log roofline, the
// best-speedup curves and the candidate table, with chart.js bundled in (works offline).
import { Chart, registerables, type ChartConfiguration, type ChartDataset, type ScatterDataPoint } from 'chart.js';
import type { CandidateRow, ReportData, RooflineData, XY } from '../src/report_data';

Chart.register(...registerables);

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

const css = getComputedStyle(document.body);
const fg = css.getPropertyValue('--vscode-foreground').trim() || '#ccc';
const grid = css.getPropertyValue('--vscode-panel-border').trim() || 'rgba(128,128,128,0.3)';
Chart.defaults.color = fg;
Chart.defaults.borderColor = grid;
Chart.defaults.animation = false;

const COLORS = { roof: '#888888', kernel: '#3794ff', baseline: '#cca700', proposal: '#3fb950' };
type Config = ChartConfiguration<'scatter', ScatterDataPoint[]>;
const charts = new Map<string, Chart<'scatter', ScatterDataPoint[]>>();

function el<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function fmt(x: number, unit = ''): string {
  const abs = Math.abs(x);
  const [scale, prefix] = abs >= 1e12 ? [1e12, 'T'] : abs >= 1e9 ? [1e9, 'G'] : abs >= 1e6 ? [1e6, 'M'] : abs >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${+(x / scale).toPrecision(3)} ${prefix}${unit}`.trim();
}

function speed(x: number | null): string {
  return x === null ? '–' : x >= 10 ? `${Math.round(x)}×` : x >= 1 ? `${x.toFixed(2)}×` : `${x.toFixed(3)}×`;
}

/** The point, else a noisy time's range "1.40–2.10×". */
function speedOrRange(x: number | null, range: { low: number; high: number } | undefined): string {
  return x === null && range ? `${speed(range.low).replace(/×$/, '')}–${speed(range.high)}` : speed(x);
}

function micros(x: number | null): string {
  return x === null ? '–' : x >= 1000 ? `${(x / 1000).toPrecision(3)} ms` : `${x.toPrecision(3)} µs`;
}

/** Replaces a chart (or shows why there is none). */
function draw(id: string, missingId: string | null, make: (() => Config) | string): void {
  charts.get(id)?.destroy();
  charts.delete(id);
  const canvas = el<HTMLCanvasElement>(id);
  if (typeof make === 'string') {
    canvas.parentElement!.style.display = 'none';
    if (missingId) el(missingId).textContent = make;
    return;
  }
  canvas.parentElement!.style.display = '';
  if (missingId) el(missingId).textContent = '';
  charts.set(id, new Chart<'scatter', ScatterDataPoint[]>(canvas, make()));
}

function rooflineChart(r: RooflineData): Config {
  const datasets: ChartDataset<'scatter', ScatterDataPoint[]>[] = [
    { label: `roof${r.precision ? ` (${r.precision})` : ''}`, data: r.roof, showLine: true, pointRadius: 0, borderColor: COLORS.roof, borderWidth: 2 },
  ];
  for (const p of r.points) {
    datasets.push({
      label: `${p.label}: ${fmt(p.y, 'FLOP/s')}, ${(100 * p.ofRoof).toFixed(0)}% of roof`,
      data: [{ x: p.x, y: p.y }],
      pointRadius: 6,
      pointStyle: p.kind === 'kernel' ? 'circle' : p.kind === 'baseline' ? 'rect' : 'triangle',
      backgroundColor: COLORS[p.kind],
      borderColor: COLORS[p.kind],
    });
  }
  return {
    type: 'scatter',
    data: { datasets },
    options: {
      maintainAspectRatio: false,
      scales: {
        x: { type: 'logarithmic', title: { display: true, text: 'arithmetic intensity (FLOP/byte)' } },
        y: { type: 'logarithmic', title: { display: true, text: 'FLOP/s' }, ticks: { callback: (v) => fmt(Number(v)) } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  };
}

const SERIES_COLORS = [COLORS.proposal, COLORS.kernel];

function curveChart(series: Array<{ label: string; points: XY[] }>, xTitle: string): Config {
  return {
    type: 'scatter',
    data: {
      datasets: series.map((s, i) => ({
        label: `best verified speedup ${s.label}`,
        data: s.points,
        showLine: true,
        stepped: 'before' as const,
        borderColor: SERIES_COLORS[i % SERIES_COLORS.length],
        backgroundColor: SERIES_COLORS[i % SERIES_COLORS.length],
      })),
    },
    options: {
      maintainAspectRatio: false,
      scales: {
        x: { type: 'linear', min: 0, title: { display: true, text: xTitle } },
        y: { type: 'linear', beginAtZero: true, title: { display: true, text: 'speedup (×)' } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  };
}

function cell(tr: HTMLTableRowElement, text: string, cls = ''): void {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
}

function table(rows: CandidateRow[]): void {
  const body = el<HTMLTableSectionElement>('candidates');
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.className = 'row';
    tr.title = 'Show this candidate as a diff';
    tr.addEventListener('click', () => vscode.postMessage({ type: 'open', run: r.run, id: r.id }));
    cell(tr, r.id);
    cell(tr, r.run);
    cell(tr, r.round === null ? '' : String(r.round), 'num');
    cell(tr, r.status, r.status === 'correct' ? 'correct' : 'bad');
    cell(tr, speedOrRange(r.speedupVsCurrent, r.speedupVsCurrentRange), 'num');
    cell(tr, speedOrRange(r.speedup, r.speedupRange), 'num');
    cell(tr, micros(r.p50Us), 'num');
    cell(tr, r.reason);
    body.appendChild(tr);
  }
}

function render(d: ReportData): void {
  el('title').textContent = d.title;
  const counts = Object.entries(d.counts).map(([k, v]) => `${v} ${k}`).join(', ');
  el('summary').textContent = [d.device ? `device: ${d.device}` : '', counts ? `candidates: ${counts}` : ''].filter((s) => s).join(' · ');
  draw('roofline', 'roofline-missing', 'missing' in d.roofline ? d.roofline.missing : () => rooflineChart(d.roofline as RooflineData));
  if ('missing' in d.curve) {
    draw('curve-time', 'curve-missing', d.curve.missing);
    draw('curve-candidates', null, d.curve.missing);
  } else {
    const c = d.curve;
    draw('curve-time', 'curve-missing', () => curveChart(c.series.map((s) => ({ label: s.label, points: s.byTime })), 'elapsed (s)'));
    draw('curve-candidates', null, () => curveChart(c.series.map((s) => ({ label: s.label, points: s.byCandidates })), 'candidates tried'));
  }
  table(d.table);
}

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as { type?: string; data?: ReportData };
  if (m.type === 'data' && m.data) render(m.data);
});
vscode.postMessage({ type: 'ready' });
