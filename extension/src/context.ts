// context.ts: owns hone-server's lifecycle for the extension: finds and checks the binary, starts
// the language client with the settings and the API key, restarts it after a crash (capped, with a
// visible message), and forwards settings changes. Features reach the server only through here.
import * as vscode from 'vscode';
import { CloseAction, ErrorAction, LanguageClient, State, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { BootstrapError, resolveServer, type ResolvedServer } from './bootstrap';
import { JobTracker } from './jobs';
import { ProposalStore } from './proposal_store';
import { RestartPolicy } from './restart_policy';
import { RESTART_KEYS, readSettings, serverEnvironment, serverSettings, type HoneSettings } from './settings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

export const API_KEY_SECRET = 'hone.llm.apiKey';

/** The kernels the server handles: CUDA files by language or extension, and CPU kernels (.cpp). */
export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'cuda-cpp' },
  { scheme: 'file', pattern: '**/*.{cu,cuh}' },
  { scheme: 'file', language: 'cpp' },
];

/** hone-server commands (workspace/executeCommand) that this extension registers with its own UI. */
export const CLIENT_COMMANDS = ['hone.check', 'hone.profile', 'hone.optimize', 'hone.showReport', 'hone.applyProposal', 'hone.showPtx', 'hone.showSass'];

/** One per extension activation; every method runs on the extension host thread. */
export class HoneContext implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  /** The LSP traffic, written when this channel's log level is Trace (hone.trace.server picks the detail). */
  private readonly trace: vscode.LogOutputChannel;
  readonly store = new ProposalStore();
  readonly jobs = new JobTracker();
  private clientInstance: LanguageClient | undefined;
  private serverInfo: ResolvedServer | undefined;
  private stateValue: ServerState = 'stopped';
  private lastError = '';
  private readonly restarts = new RestartPolicy();
  private starting: Promise<void> | undefined;
  private clientDisposables: vscode.Disposable[] = [];
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Fires on every server state change (the status bar listens). */
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('hone', { log: true });
    this.trace = vscode.window.createOutputChannel('hone LSP trace', { log: true });
    this.disposables.push(
      this.output,
      this.trace,
      this.stateEmitter,
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      extension.secrets.onDidChange((e) => {
        if (e.key === API_KEY_SECRET) void this.restart('the LLM API key changed');
      }),
    );
  }

  get state(): ServerState {
    return this.stateValue;
  }

  /** Why the server is not running, in words (empty while it runs). */
  get failure(): string {
    return this.lastError;
  }

  get server(): ResolvedServer | undefined {
    return this.serverInfo;
  }

  get settings(): HoneSettings {
    return readSettings((key) => vscode.workspace.getConfiguration('hone').get(key)).settings;
  }

  /** Subscribe a feature's disposable to the extension's lifetime. */
  subscribe(...items: vscode.Disposable[]): void {
    this.extension.subscriptions.push(...items);
  }

  /** The running client, or an error the caller shows (with why the server is down). */
  client(): LanguageClient {
    if (this.clientInstance && this.clientInstance.state === State.Running) return this.clientInstance;
    throw new Error(`hone-server is not running${this.lastError ? `: ${this.lastError}` : ''}. Run "hone: Restart server" after fixing it.`);
  }

  private setState(s: ServerState, error = ''): void {
    this.stateValue = s;
    this.lastError = error;
    this.stateEmitter.fire(s);
  }

  private workspaceDir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** Finds, checks and starts the server (once, however often it is called meanwhile). Failures are shown, logged and kept in `failure`. */
  start(): Promise<void> {
    if (this.clientInstance) return Promise.resolve();
    this.starting ??= this.startOnce().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    this.setState('starting');
    const reading = readSettings((key) => vscode.workspace.getConfiguration('hone').get(key));
    for (const p of reading.problems) {
      this.output.warn(`settings: ${p}`);
      void vscode.window.showWarningMessage(`hone: ${p}`);
    }
    const apiKey = await this.extension.secrets.get(API_KEY_SECRET);
    const env = serverEnvironment(process.env, apiKey);
    try {
      this.serverInfo = await resolveServer({
        env,
        setting: reading.settings.serverPath,
        extensionDir: this.extension.extensionPath,
        workspaceDir: this.workspaceDir(),
      });
    } catch (e) {
      const msg = e instanceof BootstrapError ? e.message : String(e);
      this.output.error(msg);
      this.setState('failed', msg);
      void vscode.window.showErrorMessage(`hone: ${msg}`, 'Open settings').then((pick) => {
        if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'hone.server.path');
      });
      return;
    }
    this.output.info(`starting ${this.serverInfo.path} ${this.serverInfo.version} (from ${this.serverInfo.source})`);
    const serverOptions: ServerOptions = {
      command: this.serverInfo.path,
      args: [],
      options: { env, cwd: this.workspaceDir() },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      // The server's commands this extension registers itself (the language client registers the rest).
      initializationOptions: { ...serverSettings(reading.settings), clientCommands: CLIENT_COMMANDS },
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{hone.toml,*.py}') },
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
        closed: () => this.onServerClosed(),
      },
    };
    const client = new LanguageClient('hone', 'hone', serverOptions, clientOptions);
    this.clientInstance = client;
    // The client restarts itself after a crash (onServerClosed): follow it back to running.
    this.clientDisposables.push(
      client.onDidChangeState((e) => {
        if (e.newState === State.Running && this.clientInstance === client) this.setState('running');
      }),
    );
    try {
      await client.start();
      this.setState('running');
    } catch (e) {
      const msg = `hone-server ${this.serverInfo.path} failed to start: ${e instanceof Error ? e.message : String(e)}`;
      this.output.error(msg);
      this.clientInstance = undefined;
      this.setState('failed', msg);
      void vscode.window.showErrorMessage(msg, 'Show output').then((pick) => pick && this.output.show());
    }
  }

  /** The language client's close handler: restart within the policy's cap, say so either way. */
  private onServerClosed(): { action: CloseAction; message?: string; handled: boolean } {
    this.jobs.cancelAll();
    const d = this.restarts.onCrash(Date.now());
    this.output.error(d.message);
    if (d.restart) {
      this.setState('starting', d.message);
      void vscode.window.showWarningMessage(d.message);
      return { action: CloseAction.Restart, handled: true };
    }
    this.setState('failed', d.message);
    void vscode.window.showErrorMessage(d.message, 'Show output', 'Restart server').then((pick) => {
      if (pick === 'Show output') this.output.show();
      if (pick === 'Restart server') void this.restart('asked by the user');
    });
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  async stop(): Promise<void> {
    await this.starting;
    const client = this.clientInstance;
    this.clientInstance = undefined;
    for (const d of this.clientDisposables) d.dispose();
    this.clientDisposables = [];
    this.jobs.cancelAll();
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.output.warn(`stopping hone-server: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.setState('stopped');
  }

  /** Stop and start again with fresh settings and a fresh crash budget. */
  async restart(why: string): Promise<void> {
    this.output.info(`restarting hone-server: ${why}`);
    this.restarts.reset();
    await this.stop();
    await this.start();
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('hone')) return;
    if (RESTART_KEYS.some((k) => e.affectsConfiguration(k))) {
      void this.restart('hone.server.path changed');
      return;
    }
    const reading = readSettings((key) => vscode.workspace.getConfiguration('hone').get(key));
    for (const p of reading.problems) void vscode.window.showWarningMessage(`hone: ${p}`);
    if (this.clientInstance?.state === State.Running) {
      void this.clientInstance.sendNotification('workspace/didChangeConfiguration', { settings: { hone: serverSettings(reading.settings) } });
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
