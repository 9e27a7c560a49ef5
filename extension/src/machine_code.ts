// machine_code.ts: "Show PTX" / "Show SASS" of the kernel under the cursor as a read-only virtual
// document beside the source (hone-asm: scheme), from the server's hone.showPtx / hone.showSass
// (workspace/executeCommand). Each machine line carries its source line (-lineinfo): moving the
// cursor in either editor highlights the matching lines in the other, as Compiler Explorer does.
// SASS shows the last profile's counters of the same build in columns beside each instruction
// (machine_code_text.ts), and their sums per source line at the end of those lines in the source.
import * as vscode from 'vscode';
import type { HoneContext } from './context';
import { renderListing, sourceLineLabel, type MachineCode } from './machine_code_text';
import { uriFromArgument } from './target';

interface Shown { listing: MachineCode; text: string; headerLines: number }

const SCHEME = 'hone-asm';

export function activate(ctx: HoneContext): void {
  const shown = new Map<string, Shown>();  // by virtual document URI
  const edited = new Set<string>();  // sources changed since their SASS was shown: their sums belong to another build
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const source = vscode.window.createTextEditorDecorationType({ backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'), isWholeLine: true });
  const machine = vscode.window.createTextEditorDecorationType({ backgroundColor: new vscode.ThemeColor('editor.wordHighlightBackground'), isWholeLine: true });
  const sums = vscode.window.createTextEditorDecorationType({ after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 2em' } });

  // The per-source-line sums of the latest SASS listing of each source document.
  const decorateSources = (): void => {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme === SCHEME) continue;
      let latest: MachineCode | undefined;
      for (const s of shown.values()) if (s.listing.uri === editor.document.uri.toString() && s.listing.kind === 'sass') latest = s.listing;
      const counters = latest?.counters;
      if (!counters || counters.metrics.length === 0 || edited.has(editor.document.uri.toString())) {
        editor.setDecorations(sums, []);
        continue;
      }
      const options = counters.sourceLines
        .filter((l) => l.inFile && l.line < editor.document.lineCount)
        .map((l) => {
          const end = editor.document.lineAt(l.line).range.end;
          const label = sourceLineLabel(l.counters, counters.metrics);
          return {
            range: new vscode.Range(end, end),
            renderOptions: { after: { contentText: label } },
            hoverMessage: new vscode.MarkdownString(`SASS counters of this line in the last profile of this build (${counters.profiledAt ?? 'unknown time'}): ${label}`),
          };
        });
      editor.setDecorations(sums, options);
    }
  };

  const show = async (kind: 'ptx' | 'sass', arg?: unknown): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    const kernel = uriFromArgument(arg) ?? editor?.document.uri;
    if (!kernel) return void vscode.window.showInformationMessage(`hone: open a CUDA file to see its ${kind.toUpperCase()}.`);
    const line = editor && editor.document.uri.toString() === kernel.toString() ? editor.selection.active.line : 0;
    let listing: MachineCode;
    try {
      listing = await ctx.client().sendRequest('workspace/executeCommand', {
        command: kind === 'ptx' ? 'hone.showPtx' : 'hone.showSass',
        arguments: [kernel.toString(), { line }],
      });
    } catch (e) {
      return void vscode.window.showErrorMessage(`hone: ${e instanceof Error ? e.message : String(e)}`);
    }
    const virtual = vscode.Uri.from({ scheme: SCHEME, path: `/${listing.name}.${listing.kind}`, query: kernel.toString() });
    shown.set(virtual.toString(), { listing, ...renderListing(listing) });
    edited.delete(kernel.toString());
    changed.fire(virtual);
    decorateSources();
    const doc = await vscode.workspace.openTextDocument(virtual);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  };

  const highlight = (e: vscode.TextEditorSelectionChangeEvent): void => {
    const here = e.textEditor.document.uri;
    if (here.scheme === SCHEME) {
      const s = shown.get(here.toString());
      const mapped = s?.listing.lines[e.selections[0].active.line - s.headerLines];
      const src = vscode.window.visibleTextEditors.find((t) => t.document.uri.toString() === s?.listing.uri);
      if (!src || !mapped || mapped.line < 0 || !mapped.inFile) return void src?.setDecorations(source, []);
      const range = new vscode.Range(mapped.line, 0, mapped.line, 0);
      src.setDecorations(source, [range]);
      src.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      return;
    }
    for (const [virtual, s] of shown) {
      if (s.listing.uri !== here.toString()) continue;
      const asm = vscode.window.visibleTextEditors.find((t) => t.document.uri.toString() === virtual);
      if (!asm) continue;
      const at = e.selections[0].active.line;
      const ranges = s.listing.lines.flatMap((l, i) => (l.inFile && l.line === at ? [new vscode.Range(s.headerLines + i, 0, s.headerLines + i, 0)] : []));
      asm.setDecorations(machine, ranges);
      if (ranges.length) asm.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  };

  ctx.subscribe(
    changed,
    source,
    machine,
    sums,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => shown.get(uri.toString())?.text ?? '',
    }),
    vscode.window.onDidChangeTextEditorSelection(highlight),
    vscode.window.onDidChangeVisibleTextEditors(decorateSources),
    vscode.workspace.onDidChangeTextDocument((e) => {
      const uri = e.document.uri.toString();
      if (e.contentChanges.length === 0 || edited.has(uri)) return;
      if (![...shown.values()].some((s) => s.listing.uri === uri && s.listing.kind === 'sass')) return;
      edited.add(uri);
      decorateSources();
    }),
    vscode.commands.registerCommand('hone.showPtx', (arg?: unknown) => show('ptx', arg)),
    vscode.commands.registerCommand('hone.showSass', (arg?: unknown) => show('sass', arg)),
  );
}
