// extension.ts: hone's VS Code entry point: creates the context (the server's lifecycle), lets
// each feature register itself, and starts the server. Nothing else lives here.
import type * as vscode from 'vscode';
import * as apiKey from './api_key';
import * as check from './check';
import { HoneContext } from './context';
import * as machineCode from './machine_code';
import * as optimize from './optimize';
import * as proposals from './proposals';
import * as report from './report';
import * as serverCommands from './server_commands';
import * as statusBar from './status_bar';
import * as taskSelect from './task_select';

let context: HoneContext | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<void> {
  const ctx = new HoneContext(extension);
  context = ctx;
  extension.subscriptions.push(ctx);
  for (const feature of [statusBar, serverCommands, apiKey, check, optimize, proposals, taskSelect, report, machineCode]) feature.activate(ctx);
  await ctx.start();
}

export async function deactivate(): Promise<void> {
  await context?.stop();
  context = undefined;
}
