// proposals.ts: verified proposals in the editor: a read-only virtual document per candidate
// (scheme hone-proposal), "Show best proposal" as vscode.diff(current, proposal) titled with its
// measured speedups, "Apply proposal" as one undoable WorkspaceEdit, and "Browse proposals".
import * as vscode from 'vscode';
import type { HoneContext } from './context';
import { PROPOSAL_SCHEME, diffTitle, parseProposalQuery, pickLabel, proposalUriParts } from './diff_title';
import { proposalRequest } from './lsp_ext';
import type { Proposal } from './model';
import { errorText, fileName, uriFromArgument } from './target';
import { proposalFrom } from './wire';

export function activate(ctx: HoneContext): void {
  const provider = new ProposalDocuments(ctx);
  ctx.subscribe(
    vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, provider),
    vscode.commands.registerCommand('hone.showProposal', async (arg?: unknown) => {
      const p = await proposalFor(ctx, arg);
      if (p) await showProposalDiff(ctx, p);
    }),
    vscode.commands.registerCommand('hone.applyProposal', async (arg?: unknown) => {
      const p = await proposalFor(ctx, arg);
      if (p) await applyProposal(ctx, p);
    }),
    vscode.commands.registerCommand('hone.browseProposals', () => browse(ctx)),
  );
}

export function proposalUri(p: Proposal): vscode.Uri {
  const { path, query } = proposalUriParts(p);
  return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path, query });
}

/** Serves proposal sources; the documents are read-only because they come from a provider. */
class ProposalDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly ctx: HoneContext) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = parseProposalQuery(uri.query);
    if (!q) throw new Error(`hone: ${uri.toString()} names no proposal`);
    const p = this.ctx.store.get(q.runId, q.candidateId);
    if (p?.source !== undefined) return p.source;
    const fetched = await fetchSource(this.ctx, q.kernelUri, q.runId, q.candidateId);
    return fetched.source ?? '';
  }
}

/** Asks the server for a candidate's source (and its verdict) and keeps it in the store. */
async function fetchSource(ctx: HoneContext, kernelUri: string, runId: string, candidateId: string): Promise<Proposal> {
  const id = Number(candidateId);
  if (!Number.isInteger(id)) throw new Error(`candidate ${candidateId} has no numeric id to ask hone-server for`);
  const reply = await ctx.client().sendRequest(proposalRequest, { textDocument: { uri: kernelUri }, id });
  return ctx.store.upsert({ ...proposalFrom(kernelUri, reply), runId, candidateId });
}

function isProposal(arg: unknown): arg is Proposal {
  return typeof arg === 'object' && arg !== null && 'candidateId' in arg && 'runId' in arg && 'kernelUri' in arg;
}

/**
 * The proposal a command acts on: one passed in (a notification button), the one shown in the
 * active diff, else the best verified proposal of the targeted kernel.
 */
async function proposalFor(ctx: HoneContext, arg: unknown): Promise<Proposal | undefined> {
  if (isProposal(arg)) return ctx.store.get(arg.runId, arg.candidateId) ?? arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (arg === undefined && active?.scheme === PROPOSAL_SCHEME) {
    const q = parseProposalQuery(active.query);
    const p = q && ctx.store.get(q.runId, q.candidateId);
    if (p) return p;
  }
  const kernel = uriFromArgument(arg);
  const best = kernel && ctx.store.best(kernel.toString());
  if (!best) {
    const name = kernel ? fileName(kernel) : 'this file';
    void vscode.window.showInformationMessage(`hone: no verified proposal for ${name} yet. Run "hone: Optimize this kernel" first.`);
  }
  return best;
}

/** Opens vscode.diff(current kernel, proposal) titled with the proposal's measured speedups. */
export async function showProposalDiff(ctx: HoneContext, p: Proposal): Promise<void> {
  try {
    if (p.source === undefined) await fetchSource(ctx, p.kernelUri, p.runId, p.candidateId);
    await vscode.commands.executeCommand('vscode.diff', vscode.Uri.parse(p.kernelUri), proposalUri(p), diffTitle(ctx.store.get(p.runId, p.candidateId) ?? p), {
      preview: false,
    });
  } catch (e) {
    void vscode.window.showErrorMessage(`hone: cannot show proposal ${p.candidateId}: ${errorText(e)}`);
  }
}

/** Replaces the kernel's whole text with the proposal as one undoable edit (the file is not saved). */
async function applyProposal(ctx: HoneContext, p: Proposal): Promise<void> {
  if (p.status !== 'correct') {
    void vscode.window.showWarningMessage(`hone: candidate ${p.candidateId} was not verified (${p.status}); only verified proposals are applied.`);
    return;
  }
  let source = ctx.store.get(p.runId, p.candidateId)?.source ?? p.source;
  try {
    source ??= (await fetchSource(ctx, p.kernelUri, p.runId, p.candidateId)).source;
  } catch (e) {
    void vscode.window.showErrorMessage(`hone: cannot apply proposal ${p.candidateId}: ${errorText(e)}`);
    return;
  }
  if (source === undefined) return;
  const uri = vscode.Uri.parse(p.kernelUri);
  const doc = await vscode.workspace.openTextDocument(uri);
  const base = ctx.store.run(p.runId)?.baseSource;
  if (base && doc.getText() !== base) {
    const go = await vscode.window.showWarningMessage(
      `${fileName(uri)} has changed since the optimize run started. Replace it with proposal ${p.candidateId} anyway? (Undo restores it.)`,
      { modal: true },
      'Replace',
    );
    if (go !== 'Replace') return;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), source);
  if (!(await vscode.workspace.applyEdit(edit))) {
    void vscode.window.showErrorMessage(`hone: VS Code refused the edit to ${fileName(uri)}.`);
    return;
  }
  await vscode.window.showTextDocument(doc, { preview: false });
  ctx.output.info(`applied proposal ${p.candidateId} of run ${p.runId} to ${uri.fsPath}`);
  void vscode.window.showInformationMessage(`hone: applied proposal ${p.candidateId} to ${fileName(uri)} (one undo step; not saved yet).`);
}

async function browse(ctx: HoneContext): Promise<void> {
  const active = uriFromArgument(undefined)?.toString();
  const kernels = active && ctx.store.list(active).length > 0 ? [active] : ctx.store.kernelsWithProposals();
  const items = kernels.flatMap((k) => ctx.store.list(k).map((p) => ({ ...pickLabel(p), proposal: p })));
  if (items.length === 0) {
    void vscode.window.showInformationMessage('hone: no candidates yet. Run "hone: Optimize this kernel" first.');
    return;
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'hone: candidates, verified and fastest first', matchOnDescription: true, matchOnDetail: true });
  if (pick) await showProposalDiff(ctx, pick.proposal);
}
