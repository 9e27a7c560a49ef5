// server_commands.ts: "Restart server" and "Show server output".
import * as vscode from 'vscode';
import type { HoneContext } from './context';

export function activate(ctx: HoneContext): void {
  ctx.subscribe(
    vscode.commands.registerCommand('hone.restartServer', () => ctx.restart('asked by the user')),
    vscode.commands.registerCommand('hone.showOutput', () => ctx.output.show()),
  );
}
