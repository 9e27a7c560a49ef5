// check.ts: the "Check this kernel" and "Profile this kernel" commands: one job on the server with
// a cancellable notification showing its stages, then the server's summary of the verdict (the
// words, like the lenses, hints and diagnostics, come from the server itself).
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { WorkDoneProgress, type WorkDoneProgressBegin, type WorkDoneProgressReport } from 'vscode-languageclient/node';
import type { HoneContext } from './context';
import { checkRequest, profileRequest } from './lsp_ext';
import { checkJobOptions } from './settings';
import { errorText, fileName, kernelDocument } from './target';
import { checkOutcome, verdictLine, type JobFinished } from './wire';

export function activate(ctx: HoneContext): void {
  ctx.subscribe(
    vscode.commands.registerCommand('hone.check', (arg?: unknown) => runCheck(ctx, 'check', arg)),
    vscode.commands.registerCommand('hone.profile', (arg?: unknown) => runCheck(ctx, 'profile', arg)),
  );
}

async function runCheck(ctx: HoneContext, kind: 'check' | 'profile', arg: unknown): Promise<void> {
  const doc = await kernelDocument(arg, kind);
  if (!doc) return;
  let client;
  try {
    client = ctx.client();
  } catch (e) {
    void vscode.window.showErrorMessage(`hone: ${errorText(e)}`);
    return;
  }
  const name = fileName(doc);
  const verb = kind === 'check' ? 'checking' : 'profiling';
  const cts = new vscode.CancellationTokenSource();
  const { end } = ctx.jobs.begin(kind, doc.uri.toString(), `${verb} ${name}`, () => cts.cancel());
  const token = `hone-${kind}-${randomUUID()}`;
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `hone: ${verb} ${name}`, cancellable: true },
      async (progress, userCancel) => {
        userCancel.onCancellationRequested(() => cts.cancel());
        const sub = client.onProgress(WorkDoneProgress.type, token, (v) => {
          if (v.kind !== 'end' && (v as WorkDoneProgressBegin | WorkDoneProgressReport).message) {
            progress.report({ message: (v as WorkDoneProgressReport).message });
          }
        });
        try {
          const request = kind === 'check' ? checkRequest : profileRequest;
          return await client.sendRequest(
            request,
            { textDocument: { uri: doc.uri.toString() }, workDoneToken: token, options: checkJobOptions(ctx.settings) },
            cts.token,
          );
        } finally {
          sub.dispose();
        }
      },
    );
    showVerdict(ctx, name, kind, result);
  } catch (e) {
    if (cts.token.isCancellationRequested) {
      void vscode.window.showInformationMessage(`hone: stopped ${verb} ${name}.`);
    } else {
      ctx.output.error(`${kind} ${doc.uri.fsPath}: ${errorText(e)}`);
      void vscode.window.showErrorMessage(`hone: ${kind} of ${name} failed: ${errorText(e)}`, 'Show output').then((p) => p && ctx.output.show());
    }
  } finally {
    end();
    cts.dispose();
  }
}

function showVerdict(ctx: HoneContext, name: string, kind: string, reply: JobFinished | null | undefined): void {
  const result = checkOutcome(reply);
  if (!result) {
    void vscode.window.showInformationMessage(`hone: ${kind} of ${name} ended without a verdict.`);
    return;
  }
  const text = verdictLine(name, result);
  ctx.output.info(`${kind}: ${text}`);
  if (result.verdict.status === 'correct') {
    void vscode.window.showInformationMessage(`hone: ${text}`, 'Show report').then((p) => p && vscode.commands.executeCommand('hone.showReport'));
  } else {
    void vscode.window.showWarningMessage(`hone: ${text}`, 'Show output').then((p) => p && ctx.output.show());
  }
}
