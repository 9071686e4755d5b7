// Entry point: wires the language client, status bar, commands, trace view
// and the debugger together.
import * as path from 'path';
import * as vscode from 'vscode';
import { Commands } from './commands';
import { findServer, Server } from './client';
import { AdapterFactory, ConfigurationProvider, debugType, StateTracker } from './debug';
import { Decorations } from './decorations';
import { log, output, recentOutput } from './log';
import { PictureView } from './picture';
import { StatusBar } from './statusBar';
import { CheckPayload } from './traceModel';
import { TraceView } from './traceView';

/** What activate() returns (for tests and other extensions). */
export interface TsocheckApi {
  server: Server;
  /** Resolves when the first start attempt is over (true = running). */
  ready: Promise<boolean>;
  trace(uri: vscode.Uri, fn: string): Promise<CheckPayload>;
  statusText(): string | undefined;
  decorations: Decorations;
  tracker: StateTracker;
  traceView: TraceView;
  /** The interleaving picture's webview. */
  picture: PictureView;
  /** The output channel's last lines. */
  outputLines(): string[];
}

let server: Server | undefined;

/** Whether some tab shows `file` (a text editor or either side of a diff). */
function openInTab(file: string): boolean {
  const same = (u: vscode.Uri | undefined) => !!u && u.scheme === 'file' && path.normalize(u.fsPath) === file;
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => {
    const i = t.input;
    if (i instanceof vscode.TabInputText) return same(i.uri);
    if (i instanceof vscode.TabInputTextDiff) return same(i.original) || same(i.modified);
    return false;
  }));
}

export function activate(context: vscode.ExtensionContext): TsocheckApi {
  const out = output();
  context.subscriptions.push(out);
  server = new Server(context.extensionPath);
  const srv = server;
  const decorations = new Decorations();
  const status = new StatusBar((d) => srv.uriOf(d));
  const traceView = new TraceView(decorations);
  const tracker = new StateTracker(decorations);
  const picture = new PictureView();
  context.subscriptions.push(srv, decorations, status, traceView, tracker, picture);

  context.subscriptions.push(
    srv.onStatus((p) => status.onStatus(p)),
    srv.onDiagnostics((uri) => {
      status.onDiagnostics(uri);
      srv.refreshLenses(srv.uriOf(uri));
      // New results for the document: the trace view (and its highlights) follows them or goes.
      if (uri.scheme === 'file') {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        void traceView.resultsReplaced(uri.fsPath, doc?.version, (fn) => srv.trace(srv.uriOf(uri), fn));
      }
    }),
    // Closing the file's last tab closes it for the user (VS Code disposes the document itself much later).
    vscode.workspace.onDidCloseTextDocument((d) => { if (d.uri.scheme === 'file') void traceView.documentClosed(d.uri.fsPath); }),
    vscode.window.tabGroups.onDidChangeTabs(() => {
      const file = traceView.loaded.docPath;
      if (file && !openInTab(file)) void traceView.documentClosed(file);
    }),
    // The trace view follows the C file in front (also when its results come after it did).
    vscode.window.onDidChangeActiveTextEditor((e) => followActive(e?.document, false)),
    srv.onStatus((p) => {
      const d = vscode.window.activeTextEditor?.document;
      if (d && !p.checking && srv.uriOf(d) === p.uri) followActive(d, true);
    }),
    srv.onState(() => { if (!srv.running) status.reset(); }),
    ...new Commands(srv, status, traceView, decorations, picture).register(),
    vscode.debug.registerDebugConfigurationProvider(debugType, new ConfigurationProvider(srv)),
    vscode.debug.registerDebugAdapterDescriptorFactory(debugType, new AdapterFactory(context.extensionPath)),
    vscode.debug.registerDebugAdapterTrackerFactory(debugType, tracker),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('tsocheck')) return;
      if (e.affectsConfiguration('tsocheck.serverPath')) restartIfMoved('tsocheck.serverPath changed');
      else void srv.pushSettings();
    }),
    // A trusted workspace's own tsocheck.serverPath counts from now on.
    vscode.workspace.onDidGrantWorkspaceTrust(() => restartIfMoved('the workspace is trusted')),
  );

  function followActive(d: vscode.TextDocument | undefined, resultsCame: boolean): void {
    if (!d || d.uri.scheme !== 'file' || d.languageId !== 'c') return;
    void traceView.activeFileChanged(d.uri.fsPath, d.version, async () => {
      const uri = srv.uriOf(d);
      const fn = status.checksOf(uri)?.find((c) => c.status === 'violation')?.function;
      return fn && srv.running ? srv.trace(uri, fn) : undefined;
    }, resultsCame);
  }

  function restartIfMoved(why: string): void {
    // Configuration refreshes can report a change without one: restart only for another binary.
    const next = findServer(context.extensionPath).path;
    if (srv.running && next === srv.binary) return;
    log(`${why}: restarting the language server (${next ?? 'not found'})`);
    void srv.restart();
  }

  const ready = srv.start();
  return {
    server: srv,
    ready,
    trace: (uri, fn) => srv.trace(srv.uriOf(uri), fn),
    statusText: () => status.summary?.text,
    decorations,
    tracker,
    traceView,
    picture,
    outputLines: () => recentOutput(),
  };
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
