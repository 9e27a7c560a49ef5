// status_bar.ts: one status bar item for hone: the server's state, or the newest running job's
// progress ("round 3/8 · best 2.1× · 41 candidates"); also sets the context keys that show Stop
// and the proposal commands.
import * as vscode from 'vscode';
import type { HoneContext } from './context';

export function activate(ctx: HoneContext): void {
  const item = vscode.window.createStatusBarItem('hone.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'hone';
  const update = (): void => {
    const jobs = ctx.jobs.running();
    const newest = jobs[jobs.length - 1];
    void vscode.commands.executeCommand('setContext', 'hone.jobRunning', jobs.length > 0);
    void vscode.commands.executeCommand('setContext', 'hone.optimizing', ctx.jobs.running('optimize').length > 0);
    void vscode.commands.executeCommand('setContext', 'hone.hasProposal', ctx.store.kernelsWithProposals().length > 0);
    item.backgroundColor = undefined;
    let state: string;
    if (newest) {
      state = `hone: ${newest.label}`;
      item.text = `$(sync~spin) hone: ${newest.label}`;
      item.tooltip = `${jobs.map((j) => j.label).join('\n')}\nClick to stop.`;
      item.command = 'hone.stop';
    } else if (ctx.state === 'failed') {
      state = 'hone-server is not running';
      item.text = '$(error) hone';
      item.tooltip = `hone-server is not running: ${ctx.failure}\nClick to show its output.`;
      item.command = 'hone.showOutput';
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (ctx.state === 'starting' || ctx.state === 'stopped') {
      state = 'hone-server is starting';
      item.text = `$(loading~spin) hone`;
      item.tooltip = ctx.failure || 'hone-server is starting';
      item.command = 'hone.showOutput';
    } else {
      state = 'hone-server is running';
      item.text = '$(check) hone';
      item.tooltip = `hone-server ${ctx.server?.version ?? ''} (${ctx.server?.source ?? ''}: ${ctx.server?.path ?? ''})\nClick for the report.`;
      item.command = 'hone.showReport';
    }
    item.accessibilityInformation = { label: state, role: 'button' };
    item.show();
  };
  ctx.subscribe(item, ctx.onDidChangeState(update), ctx.jobs.onDidChange(update), ctx.store.onDidChange(update));
  update();
}
