// optimize.ts: "Optimize this kernel" and "Stop": runs the server's verify-and-refine loop with the
// settings as they are (no questions), shows its progress in a cancellable notification and the
// status bar, keeps every candidate in the proposal store, and opens the best verified proposal
// as a diff when it beats the current kernel.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { WorkDoneProgress } from 'vscode-languageclient/node';
import type { HoneContext } from './context';
import { jobProgressNotification, optimizeRequest, proposalRequest, resultRequest } from './lsp_ext';
import type { Proposal } from './model';
import { speedupText, verifiedWord } from './diff_title';
import { showProposalDiff } from './proposals';
import { rankingSpeedup } from './proposal_store';
import { describeOptimizeSettings, hintFrom, optimizeJobOptions } from './settings';
import { formatSpeedup, optimizeNotificationText, optimizeStatusText } from './status_text';
import { errorText, fileName, kernelDocument } from './target';
import { candidateFromProgress, latestVerdict, mergeProgress, optimizeOutcome, optimizeProgressFrom, proposalFrom, runFacts, type KernelResult, type OptimizeResult } from './wire';

let runCounter = 0;

export function activate(ctx: HoneContext): void {
  ctx.subscribe(
    // A code action passes the profiler's suggestion as {hint} after the kernel's URI.
    vscode.commands.registerCommand('hone.optimize', (arg?: unknown, extra?: unknown) => optimize(ctx, arg, hintFrom(extra))),
    vscode.commands.registerCommand('hone.optimizeWithHint', async (arg?: unknown) => {
      const hint = await vscode.window.showInputBox({
        title: 'hone: Optimize with a hint',
        prompt: 'A direction for the model, added to every prompt of this run (the built-in tuner ignores it)',
        placeHolder: 'e.g. use float4 loads and keep the reduction in shared memory',
        ignoreFocusOut: true,
      });
      if (hint !== undefined && hint.trim() !== '') await optimize(ctx, arg, hint.trim());
    }),
    vscode.commands.registerCommand('hone.stop', () => {
      const n = ctx.jobs.cancelAll();
      if (n === 0) void vscode.window.showInformationMessage('hone: nothing is running.');
    }),
  );
}

async function optimize(ctx: HoneContext, arg: unknown, hint?: string): Promise<void> {
  const doc = await kernelDocument(arg, 'optimize');
  if (!doc) return;
  let client;
  try {
    client = ctx.client();
  } catch (e) {
    void vscode.window.showErrorMessage(`hone: ${errorText(e)}`);
    return;
  }
  const uri = doc.uri.toString();
  const name = fileName(doc);
  if (ctx.jobs.running('optimize', uri).length > 0) {
    const pick = await vscode.window.showInformationMessage(`hone: ${name} is already being optimized.`, 'Stop');
    if (pick) ctx.jobs.cancel('optimize', uri);
    return;
  }
  const settings = ctx.settings;
  const runId = String(++runCounter);
  const run = ctx.store.startRun(uri, runId, doc.getText());
  const cts = new vscode.CancellationTokenSource();
  const { job, end } = ctx.jobs.begin('optimize', uri, `optimizing ${name}`, () => cts.cancel());
  const token = `hone-optimize-${randomUUID()}`;
  const started = Date.now();
  const budgetS = settings.optimize.budgetMinutes * 60;
  ctx.output.info(`optimize ${doc.uri.fsPath}: ${describeOptimizeSettings(settings)}${hint ? ` · hint: ${hint}` : ''}`);
  let result: OptimizeResult | undefined;
  let failure: unknown;
  let known: KernelResult | undefined;
  try {
    known = await client.sendRequest(resultRequest, { textDocument: { uri } }).catch(() => undefined);
    const base = latestVerdict(known);
    run.baseP50Us = base?.status === 'correct' ? (base.timing?.p50_us ?? null) : null;
    const reply = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `hone: optimizing ${name} (${describeOptimizeSettings(settings)})`, cancellable: true },
      async (progress, userCancel) => {
        userCancel.onCancellationRequested(() => cts.cancel());
        let shownPct = 0;
        const advance = (message: string): void => {
          const pct = Math.min(99, (100 * (Date.now() - started)) / 1000 / budgetS);
          const increment = Math.max(0, pct - shownPct);
          shownPct += increment;
          progress.report({ message, increment });
        };
        const subs = [
          client.onNotification(jobProgressNotification, (n) => {
            if (n.uri !== uri || n.kind !== 'optimize') return;
            const candidate = candidateFromProgress(uri, runId, n);
            if (candidate) ctx.store.upsert(candidate);
            const raw = optimizeProgressFrom(n, (Date.now() - started) / 1000);
            if (!raw) return;
            const p = mergeProgress(ctx.store.run(runId)?.progress.at(-1), raw);
            ctx.store.recordProgress(runId, p);
            ctx.jobs.setLabel(job.id, optimizeStatusText(p));
            advance(optimizeNotificationText(p));
          }),
          client.onProgress(WorkDoneProgress.type, token, (value) => {
            if (value.kind !== 'end' && value.message && ctx.store.run(runId)?.progress.length === 0) advance(value.message);
          }),
        ];
        try {
          return await client.sendRequest(
            optimizeRequest,
            { textDocument: { uri }, workDoneToken: token, options: optimizeJobOptions(settings, hint) },
            cts.token,
          );
        } finally {
          for (const s of subs) s.dispose();
        }
      },
    );
    result = optimizeOutcome(reply);
  } catch (e) {
    failure = e;
  } finally {
    end();
    ctx.store.finishRun(runId);
  }
  const stopped = cts.token.isCancellationRequested;
  cts.dispose();
  if (stopped && !result) {
    // A stopped run still leaves what it verified: the server's partial result for this kernel.
    const after = await client.sendRequest(resultRequest, { textDocument: { uri } }).catch(() => undefined);
    const partial = after?.optimize;
    if (partial && partial.runId !== known?.optimize?.runId) result = partial;
  }
  if (failure !== undefined && !stopped) {
    ctx.output.error(`optimize ${doc.uri.fsPath}: ${errorText(failure)}`);
    void vscode.window.showErrorMessage(`hone: optimizing ${name} failed: ${errorText(failure)}`, 'Show output').then((p) => p && ctx.output.show());
    return;
  }
  if (result) {
    ctx.output.info(`optimize ${doc.uri.fsPath}: run ${result.runId} ${result.status} (${result.stopReason}): ${result.summary}`);
    run.serverRunId = result.runId;
    const facts = runFacts(result);
    run.baseP50Us = facts.baseP50Us ?? run.baseP50Us;
    run.counts = facts.counts;
    for (const w of result.proposals.filter((p) => p.runId === result?.runId)) ctx.store.upsert({ ...proposalFrom(uri, w), runId });
  }
  // The best verified candidate survives a Stop when the server kept it: ask for it either way,
  // but never take an earlier run's winner, or one that is already the buffer, for this run's.
  let best: Proposal | undefined;
  if (!result || typeof result.best === 'number') {
    try {
      const reply = await client.sendRequest(proposalRequest, { textDocument: { uri }, id: result?.best ?? undefined });
      const earlier = ctx.store.runsOf(uri).some((r) => r.runId !== runId && r.serverRunId === reply.runId);
      if (earlier || reply.diff === '') ctx.output.info(`no new proposal for ${name} from this run`);
      else best = ctx.store.upsert({ ...proposalFrom(uri, reply), runId });
    } catch (e) {
      ctx.output.info(`no proposal for ${name}: ${errorText(e)}`);
    }
  }
  await announce(ctx, name, best, stopped);
}

async function announce(ctx: HoneContext, name: string, best: Proposal | undefined, stopped: boolean): Promise<void> {
  const how = stopped ? 'Stopped' : 'Finished';
  const rank = best ? rankingSpeedup(best) : null;
  // The server names a best only when it beat the starting kernel; with its own measurement, check.
  const beats = best !== undefined && rank !== null && (best.speedup.overCurrent === null || best.speedup.overCurrent > 1);
  if (!best || !beats) {
    const why = best && rank !== null ? ` (the best verified candidate runs at ${formatSpeedup(best.speedup.overCurrent)} of the current kernel)` : '';
    const pick = await vscode.window.showInformationMessage(`hone: ${how} optimizing ${name}: no verified proposal beats the current kernel${why}.`, 'Browse candidates', 'Show report');
    if (pick === 'Browse candidates') void vscode.commands.executeCommand('hone.browseProposals');
    if (pick === 'Show report') void vscode.commands.executeCommand('hone.showReport');
    return;
  }
  await showProposalDiff(ctx, best);
  const pick = await vscode.window.showInformationMessage(
    `hone: ${how} optimizing ${name}: proposal ${best.candidateId} is ${verifiedWord(best)} (${speedupText(best)}).`,
    'Apply',
    'Browse',
    'Show report',
  );
  if (pick === 'Apply') void vscode.commands.executeCommand('hone.applyProposal', best);
  if (pick === 'Browse') void vscode.commands.executeCommand('hone.browseProposals');
  if (pick === 'Show report') void vscode.commands.executeCommand('hone.showReport');
}
