// api_key.ts: "Set LLM API key" / "Clear LLM API key": the key lives in VS Code's SecretStorage
// (never settings.json) and reaches hone-server only through its environment at start, so the
// context restarts the server when it changes.
import * as vscode from 'vscode';
import { API_KEY_SECRET, type HoneContext } from './context';

export function activate(ctx: HoneContext): void {
  ctx.subscribe(
    vscode.commands.registerCommand('hone.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: 'hone: LLM API key',
        prompt: 'Stored in VS Code SecretStorage and given to hone-server as HONE_LLM_API_KEY; never written to settings.',
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'Enter the key, or press Escape'),
      });
      if (key === undefined) return;
      await ctx.extension.secrets.store(API_KEY_SECRET, key.trim());
      void vscode.window.showInformationMessage('hone: API key stored; hone-server restarts to use it.');
    }),
    vscode.commands.registerCommand('hone.clearApiKey', async () => {
      await ctx.extension.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage('hone: API key removed; hone-server restarts without it.');
    }),
  );
}
