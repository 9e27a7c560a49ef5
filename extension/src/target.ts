// target.ts: which kernel a command acts on: the URI a code lens or the context menu passed,
// else the active editor's document; refused with a clear message when it is not a kernel.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PROPOSAL_SCHEME, parseProposalQuery } from './diff_title';

const KERNEL_EXTENSIONS = new Set(['.cu', '.cuh', '.cpp']);

/** A lens passes a URI string (or {uri}), a menu a vscode.Uri; a proposal document maps to its kernel. */
export function uriFromArgument(arg: unknown): vscode.Uri | undefined {
  let uri: vscode.Uri | undefined;
  if (arg instanceof vscode.Uri) uri = arg;
  else if (typeof arg === 'string' && arg.length > 0) uri = vscode.Uri.parse(arg);
  else if (typeof arg === 'object' && arg !== null && typeof (arg as { uri?: unknown }).uri === 'string') {
    uri = vscode.Uri.parse((arg as { uri: string }).uri);
  }
  uri ??= vscode.window.activeTextEditor?.document.uri;
  if (uri?.scheme === PROPOSAL_SCHEME) {
    const q = parseProposalQuery(uri.query);
    return q ? vscode.Uri.parse(q.kernelUri) : undefined;
  }
  return uri;
}

export function isKernel(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === 'file' && (doc.languageId === 'cuda-cpp' || KERNEL_EXTENSIONS.has(path.extname(doc.uri.fsPath)));
}

/** The kernel document a command targets, or undefined after telling the user why there is none. */
export async function kernelDocument(arg: unknown, action: string): Promise<vscode.TextDocument | undefined> {
  const uri = uriFromArgument(arg);
  if (!uri) {
    void vscode.window.showWarningMessage(`hone: open a kernel (.cu, .cuh or .cpp) to ${action} it.`);
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  if (!isKernel(doc)) {
    void vscode.window.showWarningMessage(`hone: ${path.basename(uri.fsPath)} is not a kernel file (.cu, .cuh or .cpp); cannot ${action} it.`);
    return undefined;
  }
  return doc;
}

export function fileName(doc: vscode.TextDocument | vscode.Uri): string {
  const uri = doc instanceof vscode.Uri ? doc : doc.uri;
  return path.basename(uri.fsPath);
}

/** The message of an error from the server or the client, for a notification. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return String(e);
}
