// Entry point: wires the language client, status bar, commands, trace view
// and the debugger together.
import * as vscode from 'vscode';
import { Commands } from './commands';
import { findServer, Server } from './client';
import { AdapterFactory, ConfigurationProvider, debugType, StateTracker } from './debug';
import { Decorations } from './decorations';
import { log, output } from './log';
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
}

let server: Server | undefined;

export function activate(context: vscode.ExtensionContext): TsocheckApi {
  const out = output();
  context.subscriptions.push(out);
  server = new Server(context.extensionPath);
  const srv = server;
  const decorations = new Decorations();
  const status = new StatusBar((d) => srv.uriOf(d));
  const traceView = new TraceView(decorations);
  const tracker = new StateTracker(decorations);
  context.subscriptions.push(srv, decorations, status, traceView, tracker);

  context.subscriptions.push(
    srv.onStatus((p) => status.onStatus(p)),
    srv.onDiagnostics((uri) => {
      status.onDiagnostics(uri);
      srv.refreshLenses(srv.uriOf(uri));
    }),
    srv.onState(() => { if (!srv.running) status.reset(); }),
    ...new Commands(srv, status, traceView, decorations).register(),
    vscode.debug.registerDebugConfigurationProvider(debugType, new ConfigurationProvider()),
    vscode.debug.registerDebugAdapterDescriptorFactory(debugType, new AdapterFactory(context.extensionPath)),
    vscode.debug.registerDebugAdapterTrackerFactory(debugType, tracker),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('tsocheck.serverPath')) return;
      // Configuration refreshes can report a change without one: restart only for another binary.
      const next = findServer(context.extensionPath).path;
      if (srv.running && next === srv.binary) return;
      log(`tsocheck.serverPath changed: restarting the language server (${next ?? 'not found'})`);
      void srv.restart();
    }),
  );

  const ready = srv.start();
  return {
    server: srv,
    ready,
    trace: (uri, fn) => srv.trace(srv.uriOf(uri), fn),
    statusText: () => status.summary?.text,
    decorations,
    tracker,
  };
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
