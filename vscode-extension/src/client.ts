// The language client: finds the binary, starts `tsocheck lsp`, rewrites the
// server's code lenses to client commands, and relays `tsocheck/status`.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  CodeLensRequest, DidChangeConfigurationNotification, ExecuteCommandRequest, LanguageClient, LanguageClientOptions, MessageType,
  RevealOutputChannelOn, ServerOptions, ShowMessageNotification, State,
} from 'vscode-languageclient/node';
import { log, output } from './log';
import { notFoundMessage, Resolution, resolveServerPath } from './serverPath';
import { executableSetting, serverSettings } from './settings';
import { Picture } from './picture';
import { StatusParams } from './statusModel';
import { checksOf, ServerCheck } from './checks';
import { CheckPayload } from './traceModel';

export function isExecutable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * A setting that names a program to run (serverPath, debugAdapterPath): a
 * workspace's value only counts once the workspace is trusted.
 */
export function programSetting(key: 'serverPath' | 'debugAdapterPath'): string | undefined {
  return executableSetting(vscode.workspace.getConfiguration('tsocheck').inspect<string>(key), vscode.workspace.isTrusted);
}

/** What the server gets as its settings: initializationOptions and every change after. */
export function currentServerSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('tsocheck');
  return serverSettings((k) => config.get(k));
}

/** The tsocheck binary for the language server (setting, bundled, development build, PATH). */
export function findServer(extensionPath: string): Resolution {
  return resolveServerPath({
    configured: programSetting('serverPath'),
    extensionPath,
    pathEnv: process.env.PATH,
    workspaceFolders: workspaceRoots(),
    homeDir: os.homedir(),
    isExecutable,
  });
}

/** Client command ids the server's lens commands are rewritten to. */
const lensRewrites: Record<string, string> = {
  'tsocheck.showTrace': 'tsocheck.openTrace',
  'tsocheck.runWithModel': 'tsocheck.rerun',
  'tsocheck.recheck': 'tsocheck.checkFile',
};

/** Server command links in hover markdown → the client commands, as for lenses. */
export function rewriteCommandLinks(md: string): string {
  return md.replace(/command:(tsocheck\.[A-Za-z]+)\?/g, (m, c: string) => (lensRewrites[c] ? `command:${lensRewrites[c]}?` : m));
}

/** The server's own verdict message for tsocheck.runWithModel; the client shows a richer one. */
const verdictMessage = /^`[^`]+` under (SC|TSO|PSO): /;

export async function offerServerPathFix(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, 'Open Setting', 'Show Log');
  if (choice === 'Open Setting') await vscode.commands.executeCommand('workbench.action.openSettings', 'tsocheck.serverPath');
  else if (choice === 'Show Log') output().show(true);
}

export class Server implements vscode.Disposable {
  client: LanguageClient | undefined;
  binary: string | undefined;
  private ownRuns = 0;
  /** How many `tsocheck/status` notifications arrived (0: an older server; the status bar falls back to diagnostics). */
  statusNotifications = 0;
  /** The server's window/showMessage notifications shown to the user, in order. */
  readonly shownMessages: string[] = [];
  /** Why the last start failed (undefined after a successful start). */
  lastStartError: string | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<StatusParams>();
  private readonly diagnosticsEmitter = new vscode.EventEmitter<vscode.Uri>();
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  /** A `tsocheck/status` notification arrived. */
  readonly onStatus = this.statusEmitter.event;
  /** The server published diagnostics for a document (also empty ones). */
  readonly onDiagnostics = this.diagnosticsEmitter.event;
  /** The client started or stopped. */
  readonly onState = this.stateEmitter.event;

  constructor(private readonly extensionPath: string) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  async start(): Promise<boolean> {
    const found = findServer(this.extensionPath);
    const configured = programSetting('serverPath');
    this.lastStartError = undefined;
    if (!found.path) {
      const msg = notFoundMessage(found, configured);
      this.lastStartError = msg;
      log(msg);
      void offerServerPathFix(msg);
      return false;
    }
    this.binary = found.path;
    log(`language server: ${found.path} lsp (${found.source})`);
    // The extension spawns the server itself: the language client logs every
    // exit of a process it spawned as "[Error] Server process exited with
    // code 0", also after its own stop. Here a stop's exit is logged as info,
    // and only an exit nobody asked for as an error (the client still notices
    // the closed pipe and restarts the server).
    const binary = found.path;
    const serverOptions: ServerOptions = () => new Promise<cp.ChildProcess>((resolve, reject) => {
      const proc = cp.spawn(binary, ['lsp'], { cwd: workspaceRoots()[0], stdio: 'pipe' });
      proc.once('error', reject);
      proc.once('spawn', () => {
        this.processes.add(proc);
        resolve(proc);
      });
      proc.on('exit', (code, signal) => {
        this.processes.delete(proc);
        const how = code !== null ? `code ${code}` : `signal ${signal}`;
        if (this.stopping.has(proc) || (code === 0 && this.stopRequested)) log(`language server stopped (pid ${proc.pid}, exit ${how})`);
        else output().appendLine(`[Error - ${new Date().toLocaleTimeString()}] the language server (pid ${proc.pid}) exited unexpectedly with ${how}`);
      });
    });
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'c' }],
      outputChannel: output(),
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The settings go through serverSettings on both paths (pushSettings):
      // the raw section would send "default" and "" as values.
      initializationOptions: currentServerSettings,
      initializationFailedHandler: (error) => {
        log(`initialize failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
      middleware: {
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          return lenses ? rewriteLenses(lenses) : lenses;
        },
        // The hover's "Show the trace" link names the server command: the
        // client's own one opens the trace view.
        provideHover: async (document, position, token, next) => {
          const h = await next(document, position, token);
          if (!h) return h;
          const contents = h.contents.map((c) => {
            if (!(c instanceof vscode.MarkdownString)) return c;
            const md = new vscode.MarkdownString(rewriteCommandLinks(c.value));
            md.isTrusted = { enabledCommands: Object.values(lensRewrites) };
            return md;
          });
          return new vscode.Hover(contents, h.range);
        },
        handleDiagnostics: (uri, diagnostics, next) => {
          next(uri, diagnostics);
          this.diagnosticsEmitter.fire(uri);
        },
      },
    };
    const client = new LanguageClient('tsocheck', 'tsocheck', serverOptions, clientOptions);
    client.onNotification('tsocheck/status', (p: StatusParams) => {
      this.statusNotifications++;
      this.statusEmitter.fire(p);
      this.refreshLenses(p.uri);
    });
    client.onNotification(ShowMessageNotification.type, (m) => {
      if (this.ownRuns > 0 && verdictMessage.test(m.message)) return;
      this.shownMessages.push(m.message);
      if (m.type === MessageType.Error) void vscode.window.showErrorMessage(m.message);
      else if (m.type === MessageType.Warning) void vscode.window.showWarningMessage(m.message);
      else void vscode.window.showInformationMessage(m.message);
    });
    client.onDidChangeState(() => this.stateEmitter.fire());
    this.client = client;
    try {
      await client.start();
      return true;
    } catch (e) {
      const msg = `tsocheck: the language server (${found.path} lsp) failed to start: ${e instanceof Error ? e.message : String(e)}. ` +
        'Check the binary (run it with "lsp" in a terminal) or set "tsocheck.serverPath".';
      this.lastStartError = msg;
      log(msg);
      void offerServerPathFix(msg);
      this.client = undefined;
      try { await client.dispose(); } catch { /* already down */ }
      return false;
    }
  }

  /** Server processes alive, and those being stopped on purpose. */
  private readonly processes = new Set<cp.ChildProcess>();
  private readonly stopping = new Set<cp.ChildProcess>();
  private stopRequested = false;

  /** Stops the client (shutdown + exit); a server that does not exit in 3 s is killed. */
  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    const procs = [...this.processes];
    for (const p of procs) this.stopping.add(p);
    this.stopRequested = true;
    if (c) {
      try { await c.stop(5000); } catch (e) { log(`stop: ${String(e)}`); }
    }
    await Promise.all(procs.map((p) => new Promise<void>((resolve) => {
      if (p.exitCode !== null || p.signalCode !== null) return resolve();
      const timer = setTimeout(() => { p.kill('SIGKILL'); resolve(); }, 3000);
      p.once('exit', () => { clearTimeout(timer); resolve(); });
    })));
    for (const p of procs) this.stopping.delete(p);
    this.stopRequested = false;
    this.stateEmitter.fire();
  }

  async restart(): Promise<boolean> {
    log('restarting the language server');
    await this.stop();
    return this.start();
  }

  private need(): LanguageClient {
    if (!this.client || this.client.state !== State.Running)
      throw new Error('the tsocheck language server is not running (see "tsocheck: Show Server Log")');
    return this.client;
  }

  /** Sends the current settings (a tsocheck setting changed). */
  async pushSettings(): Promise<void> {
    const c = this.client;
    if (!c || c.state !== State.Running) return;
    await c.sendNotification(DidChangeConfigurationNotification.type, { settings: currentServerSettings() });
  }

  /** The document's URI as the server knows it. */
  uriOf(doc: vscode.TextDocument | vscode.Uri): string {
    const uri = doc instanceof vscode.Uri ? doc : doc.uri;
    return this.client ? this.client.code2ProtocolConverter.asUri(uri) : uri.toString();
  }

  executeCommand<T = unknown>(command: string, args: unknown[], token?: vscode.CancellationToken): Promise<T> {
    return this.need().sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token) as Promise<T>;
  }

  /** The document's check functions, from the server's latest lowering of it. */
  async checks(uri: string, token?: vscode.CancellationToken): Promise<ServerCheck[]> {
    // (A method given by name takes a trailing `undefined` as a second
    // parameter and sends an array: the token is passed only when there is one.)
    const params = { textDocument: { uri } };
    const c = this.need();
    return checksOf(await (token ? c.sendRequest('tsocheck/checks', params, token) : c.sendRequest('tsocheck/checks', params)));
  }

  trace(uri: string, fn: string): Promise<CheckPayload> {
    return this.need().sendRequest<CheckPayload>('tsocheck/trace', { uri, function: fn });
  }

  /** The interleaving picture of fn's violation (null: none). */
  tracePicture(uri: string, fn: string): Promise<Picture | null> {
    return this.need().sendRequest<Picture | null>('tsocheck/tracePicture', { textDocument: { uri }, function: fn });
  }

  /** tsocheck.runWithModel with the server's own verdict message held back. */
  async runWithModel(uri: string, fn: string, model: string, token?: vscode.CancellationToken): Promise<CheckPayload> {
    this.ownRuns++;
    try {
      return await this.executeCommand<CheckPayload>('tsocheck.runWithModel', [uri, fn, model], token);
    } finally {
      // The message is sent just before the reply; keep it muted a moment longer.
      setTimeout(() => this.ownRuns--, 500);
    }
  }

  /**
   * Asks VS Code to fetch the lenses again. Called on every tsocheck/status so
   * the "checking… N executions" lens follows a running check; the server's
   * workspace/codeLens/refresh comes only when a check ends.
   */
  refreshLenses(uri?: string): void {
    const c = this.client;
    if (!c || c.state !== State.Running) return;
    const feature = c.getFeature(CodeLensRequest.method);
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.languageId !== 'c' || (uri && this.uriOf(doc) !== uri)) continue;
      feature?.getProvider(doc)?.onDidChangeCodeLensEmitter.fire();
    }
  }

  dispose(): void {
    void this.stop();
    this.statusEmitter.dispose();
    this.diagnosticsEmitter.dispose();
    this.stateEmitter.dispose();
  }
}

/** Server lens commands → client commands; a violation lens gets a "debug this interleaving" lens beside it. */
export function rewriteLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[] {
  const out: vscode.CodeLens[] = [];
  for (const lens of lenses) {
    const cmd = lens.command;
    if (!cmd) { out.push(lens); continue; }
    const to = lensRewrites[cmd.command];
    if (to) lens.command = { ...cmd, command: to };
    out.push(lens);
    if (cmd.command === 'tsocheck.showTrace') {
      out.push(new vscode.CodeLens(lens.range, {
        title: 'picture', command: 'tsocheck.showPicture', arguments: cmd.arguments,
        tooltip: 'Show the interleaving as thread lanes beside the editor',
      }));
      out.push(new vscode.CodeLens(lens.range, {
        title: 'debug this interleaving', command: 'tsocheck.debugInterleaving', arguments: cmd.arguments,
        tooltip: 'Replay this trace step by step in the debugger',
      }));
    }
  }
  return out;
}
