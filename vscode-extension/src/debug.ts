// The `tsocheck` debug type: launch configurations filled from the active
// editor, `tsocheck dap` as the adapter, and a tracker that fetches
// `tsocheckState` at every stop to decorate the editor.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { findServer, isExecutable, programSetting, Server, workspaceRoots } from './client';
import { Decorations } from './decorations';
import { log } from './log';
import { expandConfiguredPath, notFoundMessage } from './serverPath';
import { checkAt } from './checks';
import { AdapterState, planDecorations, resolveFile } from './traceModel';

export const debugType = 'tsocheck';

function activeC(): vscode.TextEditor | undefined {
  const e = vscode.window.activeTextEditor;
  return e && e.document.languageId === 'c' && e.document.uri.scheme === 'file' ? e : undefined;
}

export class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  /** The language server: it names the check function around the cursor. */
  constructor(private readonly server: Server) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [{ type: debugType, request: 'launch', name: 'tsocheck: replay the violation', program: '${file}', stopOnEntry: true }];
  }

  // The adapter checks the file on disk; the language server checks the
  // editor's text. Save unsaved changes first so both see the same program.
  async resolveDebugConfigurationWithSubstitutedVariables(
    _folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    if (typeof config.program === 'string') {
      const program = path.resolve(config.program);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === program);
      if (doc?.isDirty && !(await doc.save())) {
        void vscode.window.showErrorMessage(`tsocheck: save ${path.basename(program)} first: the replay checks the file on disk.`);
        return undefined;
      }
    }
    return config;
  }

  async resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration,
    token?: vscode.CancellationToken): Promise<vscode.DebugConfiguration | undefined> {
    const editor = activeC();
    if (!config.type && !config.request && !config.name) {
      // F5 without a launch.json.
      if (!editor) {
        void vscode.window.showErrorMessage('tsocheck: open a C file with a TSOCHECK function to replay its violation.');
        return undefined;
      }
      config = { type: debugType, request: 'launch', name: 'tsocheck: replay the violation', stopOnEntry: true };
    }
    if (!config.program) {
      if (!editor) {
        void vscode.window.showErrorMessage('tsocheck: the launch configuration needs "program" (the C file).');
        return undefined;
      }
      config.program = editor.document.uri.fsPath;
    }
    if (!config.function && editor && (config.program === '${file}' || path.resolve(String(config.program)) === editor.document.uri.fsPath)) {
      const checks = this.server.running ? await this.server.checks(this.server.uriOf(editor.document), token).catch(() => []) : [];
      const f = checkAt(checks, editor.selection.active.line);
      if (f) config.function = f.name;
    }
    const settings = vscode.workspace.getConfiguration('tsocheck');
    for (const key of ['model', 'bufferBound', 'preemptionBound', 'loopBound', 'timeLimit', 'compileCommandsDir']) {
      const v = settings.get(key);
      if (config[key] === undefined && v !== null && v !== undefined && v !== '' && v !== 'default') config[key] = v;
    }
    if (config.stopOnEntry === undefined) config.stopOnEntry = true;
    return config;
  }
}

export class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly extensionPath: string) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.DebugAdapterDescriptor {
    const own = (programSetting('debugAdapterPath') ?? '').trim();
    let binary: string | undefined;
    if (own) {
      binary = expandConfiguredPath(own, workspaceRoots(), os.homedir());
      if (!isExecutable(binary)) throw new Error(`tsocheck: "tsocheck.debugAdapterPath" (${binary}) is not an executable file.`);
    } else {
      const found = findServer(this.extensionPath);
      if (!found.path) throw new Error(notFoundMessage(found, programSetting('serverPath')));
      binary = found.path;
    }
    // An older binary without the adapter prints its usage and exits 2: say so instead of "read error".
    const probe = spawnSync(binary, ['dap'], { input: '', timeout: 10000 });
    if (probe.status !== 0 && probe.signal !== 'SIGTERM')
      throw new Error(`tsocheck: ${binary} has no debug adapter ("tsocheck dap" exited with ${probe.status ?? probe.signal}). ` +
        'Use a newer build, or point "tsocheck.debugAdapterPath" at one.');
    const cwd = session.workspaceFolder?.uri.fsPath ?? workspaceRoots()[0] ?? (typeof session.configuration.program === 'string' ? path.dirname(session.configuration.program) : undefined);
    log(`debug adapter: ${binary} dap (cwd ${cwd ?? '-'})`);
    return new vscode.DebugAdapterExecutable(binary, ['dap'], cwd ? { cwd } : undefined);
  }
}

/** At every `stopped` event: `tsocheckState` → decorations; cleared when the session ends. */
export class StateTracker implements vscode.DebugAdapterTrackerFactory {
  private readonly states = new Map<string, AdapterState>();
  private readonly emitter = new vscode.EventEmitter<{ session: vscode.DebugSession; state: AdapterState }>();
  /** A new state was fetched and shown. */
  readonly onState = this.emitter.event;

  constructor(private readonly decorations: Decorations) {}

  lastState(session: vscode.DebugSession): AdapterState | undefined {
    return this.states.get(session.id);
  }

  createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    let seq = 0;
    let ended = false;
    const end = () => {
      ended = true;
      seq++;
      this.states.delete(session.id);
      this.decorations.clear('debug');
    };
    return {
      onDidSendMessage: (m: { type?: string; event?: string }) => {
        if (m.type !== 'event') return;
        if (m.event === 'stopped') {
          const mine = ++seq;
          void this.refresh(session, () => mine === seq);
        } else if (m.event === 'terminated' || m.event === 'exited') {
          end();
        }
      },
      onWillStopSession: end,
      onExit: end,
      // The adapter's pipe closing after the session ended is normal: nothing to say.
      onError: (e) => {
        if (ended && /read error|EPIPE|ECONNRESET/i.test(e.message)) return;
        log(`debug adapter error: ${e.message}`);
      },
    };
  }

  private async refresh(session: vscode.DebugSession, stillCurrent: () => boolean): Promise<void> {
    let state: AdapterState;
    try {
      state = await session.customRequest('tsocheckState');
    } catch (e) {
      log(`tsocheckState failed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (!stillCurrent() || !state) return;
    this.states.set(session.id, state);
    const program = typeof session.configuration.program === 'string' ? session.configuration.program : undefined;
    const roots = [...(program ? [path.dirname(program)] : []), ...(session.workspaceFolder ? [session.workspaceFolder.uri.fsPath] : []), ...workspaceRoots()];
    const resolve = (f: string | undefined) => resolveFile(f, program ? [path.resolve(program)] : [], roots, fs.existsSync);
    const cur = state.current ?? undefined;
    const label = cur ? (typeof cur.label === 'string' ? cur.label : cur.thread !== undefined ? `T${cur.thread}` : undefined) : undefined;
    const current = cur ? { file: cur.file, line: cur.line, label } : undefined;
    this.decorations.show('debug', planDecorations(current, state.pending ?? [], state.staleRead, resolve));
    this.emitter.fire({ session, state });
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
