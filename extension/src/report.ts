// report.ts: "Show report": a webview with the kernel's roofline (kernel, baseline, best
// proposal), the optimization curve and the candidate table, drawn by dist/report.js (chart.js
// bundled in: no network). Follows the kernel's optimize run live.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { HoneContext } from './context';
import { resultRequest } from './lsp_ext';
import { showProposalDiff } from './proposals';
import { shapeReport, type ReportInput } from './report_data';
import { fileName, uriFromArgument } from './target';
import { latestVerdict, rooflineInput, type Verdict } from './wire';

export function activate(ctx: HoneContext): void {
  let panel: ReportPanel | undefined;
  ctx.subscribe(
    vscode.commands.registerCommand('hone.showReport', (arg?: unknown) => {
      const kernel = uriFromArgument(arg) ?? lastOptimized(ctx);
      if (!kernel) {
        void vscode.window.showInformationMessage('hone: open a kernel, or optimize one, to see its report.');
        return;
      }
      if (panel) panel.show(kernel);
      else {
        panel = new ReportPanel(ctx, kernel);
        panel.onDispose(() => (panel = undefined));
      }
    }),
  );
}

function lastOptimized(ctx: HoneContext): vscode.Uri | undefined {
  const k = ctx.store.kernelsWithProposals().pop();
  return k ? vscode.Uri.parse(k) : undefined;
}

/** One report panel per window; it follows whichever kernel it was last asked to show. */
class ReportPanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private verdict: Verdict | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: HoneContext,
    private kernel: vscode.Uri,
  ) {
    const dist = vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel('hone.report', this.title(), vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [dist],
    });
    this.panel.webview.html = this.html(dist);
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m)),
      this.panel.onDidChangeViewState(() => this.panel.visible && this.post()),
      ctx.store.onDidChange(() => this.schedulePost()),
      ctx.jobs.onDidChange(() => this.refreshVerdict()),
    );
    void this.refreshVerdict();
  }

  onDispose(f: () => void): void {
    this.panel.onDidDispose(() => {
      for (const d of this.disposables) d.dispose();
      if (this.timer) clearTimeout(this.timer);
      f();
    });
  }

  show(kernel: vscode.Uri): void {
    this.kernel = kernel;
    this.verdict = null;
    this.panel.title = this.title();
    this.panel.reveal();
    void this.refreshVerdict();
  }

  private title(): string {
    return `hone report: ${fileName(this.kernel)}`;
  }

  /** The kernel's latest verdict (with its profile) from the server. */
  private async refreshVerdict(): Promise<void> {
    try {
      const r = await this.ctx.client().sendRequest(resultRequest, { textDocument: { uri: this.kernel.toString() } });
      this.verdict = latestVerdict(r) ?? null;
    } catch (e) {
      this.ctx.output.warn(`report: hone/result for ${this.kernel.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.post();
  }

  private schedulePost(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, 300);
  }

  private input(): ReportInput {
    const uri = this.kernel.toString();
    const runs = this.ctx.store.runsOf(uri);
    const latest = runs[0];
    const best = this.ctx.store.best(uri);
    return {
      kernelName: fileName(this.kernel),
      device: this.verdict?.device?.name,
      roofline: this.verdict ? rooflineInput(this.verdict, best) : undefined,
      history: latest?.progress ?? [],
      baseP50Us: latest?.baseP50Us ?? null,
      counts: latest?.counts ?? null,
      candidates: this.ctx.store.list(uri),
    };
  }

  private post(): void {
    if (!this.panel.visible) return;
    void this.panel.webview.postMessage({ type: 'data', data: shapeReport(this.input()) });
  }

  private onMessage(m: unknown): void {
    const msg = m as { type?: string; run?: string; id?: string };
    if (msg.type === 'ready') this.post();
    if (msg.type === 'open' && msg.run && msg.id) {
      const p = this.ctx.store.get(msg.run, msg.id);
      if (p) void showProposalDiff(this.ctx, p);
    }
  }

  private html(dist: vscode.Uri): string {
    const web = this.panel.webview;
    const script = web.asWebviewUri(vscode.Uri.joinPath(dist, 'report.js'));
    const nonce = randomBytes(16).toString('base64');
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${web.cspSource} data:; style-src ${web.cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hone report</title>
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px 24px; }
  h1 { font-size: 1.3em; } h2 { font-size: 1.05em; margin: 18px 0 6px; }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; }
  .chart { position: relative; height: 300px; }
  .missing { opacity: 0.75; font-style: italic; }
  .note { opacity: 0.75; font-size: 0.9em; }
  table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
  th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-panel-border); }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  tr.row { cursor: pointer; } tr.row:hover { background: var(--vscode-list-hoverBackground); }
  .correct { color: var(--vscode-testing-iconPassed); } .bad { color: var(--vscode-testing-iconFailed); }
</style></head>
<body>
<h1 id="title">hone report</h1>
<div id="summary"></div>
<div class="charts">
  <section><h2>Roofline</h2><div class="chart"><canvas id="roofline"></canvas></div><p id="roofline-missing" class="missing"></p></section>
  <section><h2>Best verified speedup over time</h2><div class="chart"><canvas id="curve-time"></canvas></div><p id="curve-missing" class="missing"></p>
    <p class="note">The optimizer's best verified candidate as it reported it during the run; re-verification on fresh seeds can lower it.</p></section>
  <section><h2>Best verified speedup over candidates</h2><div class="chart"><canvas id="curve-candidates"></canvas></div></section>
</div>
<h2>Candidates</h2>
<table><thead><tr><th>candidate</th><th>run</th><th>round</th><th>status</th><th>vs current</th><th>vs eager</th><th>time</th><th>reason</th></tr></thead><tbody id="candidates"></tbody></table>
<script nonce="${nonce}" src="${script}"></script>
</body></html>`;
  }
}
