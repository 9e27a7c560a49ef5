// machine_code.ts: "Show PTX" / "Show SASS" of the kernel under the cursor as a read-only virtual
// document beside the source (hone-asm: scheme), from the server's hone.showPtx / hone.showSass
// (workspace/executeCommand). Each machine line carries its source line (-lineinfo): moving the
// cursor in either editor highlights the matching lines in the other, as Compiler Explorer does.
import * as vscode from 'vscode';
import type { HoneContext } from './context';
import { uriFromArgument } from './target';

interface Line { text: string; file: string; line: number; inFile: boolean }
interface Listing { uri: string; kind: string; name: string; text: string; lines: Line[] }

const SCHEME = 'hone-asm';

export function activate(ctx: HoneContext): void {
  const listings = new Map<string, Listing>();  // by virtual document URI
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const source = vscode.window.createTextEditorDecorationType({ backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'), isWholeLine: true });
  const machine = vscode.window.createTextEditorDecorationType({ backgroundColor: new vscode.ThemeColor('editor.wordHighlightBackground'), isWholeLine: true });

  const show = async (kind: 'ptx' | 'sass', arg?: unknown): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    const kernel = uriFromArgument(arg) ?? editor?.document.uri;
    if (!kernel) return void vscode.window.showInformationMessage(`hone: open a CUDA file to see its ${kind.toUpperCase()}.`);
    const line = editor && editor.document.uri.toString() === kernel.toString() ? editor.selection.active.line : 0;
    let listing: Listing;
    try {
      listing = await ctx.client().sendRequest('workspace/executeCommand', {
        command: kind === 'ptx' ? 'hone.showPtx' : 'hone.showSass',
        arguments: [kernel.toString(), { line }],
      });
    } catch (e) {
      return void vscode.window.showErrorMessage(`hone: ${e instanceof Error ? e.message : String(e)}`);
    }
    const virtual = vscode.Uri.from({ scheme: SCHEME, path: `/${listing.name}.${listing.kind}`, query: kernel.toString() });
    listings.set(virtual.toString(), listing);
    changed.fire(virtual);
    const doc = await vscode.workspace.openTextDocument(virtual);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  };

  const highlight = (e: vscode.TextEditorSelectionChangeEvent): void => {
    const here = e.textEditor.document.uri;
    if (here.scheme === SCHEME) {
      const listing = listings.get(here.toString());
      const mapped = listing?.lines[e.selections[0].active.line];
      const src = vscode.window.visibleTextEditors.find((t) => t.document.uri.toString() === listing?.uri);
      if (!src || !mapped || mapped.line < 0 || !mapped.inFile) return void src?.setDecorations(source, []);
      const range = new vscode.Range(mapped.line, 0, mapped.line, 0);
      src.setDecorations(source, [range]);
      src.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      return;
    }
    for (const [virtual, listing] of listings) {
      if (listing.uri !== here.toString()) continue;
      const asm = vscode.window.visibleTextEditors.find((t) => t.document.uri.toString() === virtual);
      if (!asm) continue;
      const at = e.selections[0].active.line;
      const ranges = listing.lines.flatMap((l, i) => (l.inFile && l.line === at ? [new vscode.Range(i, 0, i, 0)] : []));
      asm.setDecorations(machine, ranges);
      if (ranges.length) asm.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  };

  ctx.subscribe(
    changed,
    source,
    machine,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => listings.get(uri.toString())?.text ?? '',
    }),
    vscode.window.onDidChangeTextEditorSelection(highlight),
    vscode.commands.registerCommand('hone.showPtx', (arg?: unknown) => show('ptx', arg)),
    vscode.commands.registerCommand('hone.showSass', (arg?: unknown) => show('sass', arg)),
  );
}
