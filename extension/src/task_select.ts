// task_select.ts: "Select task (reference)": picks the KernelBench task a kernel is checked
// against and records it in the kernel as a `// hone: task=PATH` line (one undoable edit), the
// pairing that hone's CLI and server both read.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HoneContext } from './context';
import { fileName, kernelDocument } from './target';
import { findTaskPragma, looksLikeTask, pragmaEdit, pragmaPath, rankTasks } from './task_pragma';

const EXCLUDE = '**/{node_modules,.git,.hone,build,build-*,__pycache__}/**';

export function activate(ctx: HoneContext): void {
  ctx.subscribe(vscode.commands.registerCommand('hone.selectTask', (arg?: unknown) => selectTask(arg)));
}

async function taskFiles(): Promise<string[]> {
  const found = await vscode.workspace.findFiles('**/*.py', EXCLUDE, 2000);
  const tasks: string[] = [];
  for (const uri of found) {
    const bytes = await vscode.workspace.fs.readFile(uri);
    if (looksLikeTask(Buffer.from(bytes.subarray(0, 256 * 1024)).toString('utf8'))) tasks.push(uri.fsPath);
  }
  return tasks;
}

async function selectTask(arg: unknown): Promise<void> {
  const doc = await kernelDocument(arg, 'pair');
  if (!doc) return;
  const current = findTaskPragma(doc.getText())?.task;
  const items: Array<vscode.QuickPickItem & { file?: string }> = rankTasks(doc.uri.fsPath, await taskFiles()).map((file) => ({
    label: path.basename(file),
    description: vscode.workspace.asRelativePath(file),
    file,
  }));
  items.push({ label: '$(folder-opened) Browse…', description: 'a task file outside the workspace' });
  const pick = await vscode.window.showQuickPick(items, {
    title: `hone: the reference task for ${fileName(doc)}`,
    placeHolder: current ? `now: ${current}` : 'now: paired by file name or hone.toml',
    matchOnDescription: true,
  });
  if (!pick) return;
  let file = pick.file;
  if (!file) {
    const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'KernelBench task': ['py'] }, title: 'hone: reference task' });
    file = chosen?.[0]?.fsPath;
    if (!file) return;
  }
  const task = pragmaPath(doc.uri.fsPath, file);
  const e = pragmaEdit(doc.getText(), task);
  const edit = new vscode.WorkspaceEdit();
  if (e.replaceLine) edit.replace(doc.uri, doc.lineAt(e.line).range, e.newText);
  else edit.insert(doc.uri, new vscode.Position(0, 0), e.newText);
  if (await vscode.workspace.applyEdit(edit)) {
    void vscode.window.showInformationMessage(`hone: ${fileName(doc)} is now checked against ${task}.`);
  }
}
