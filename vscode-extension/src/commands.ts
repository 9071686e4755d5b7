// The palette commands (tsocheck.*). Server commands are called through
// workspace/executeCommand; these ids never clash with the server's
// (tsocheck.recheck / showTrace / runWithModel), which the client registers itself.
import * as vscode from 'vscode';
import { Server } from './client';
import { Decorations } from './decorations';
import { debugType } from './debug';
import { formatCount } from './format';
import { checkAt } from './checks';
import { log, output } from './log';
import { StatusBar } from './statusBar';
import { Picture, PictureView } from './picture';
import { problemsFirst } from './statusModel';
import { CheckPayload } from './traceModel';
import { TraceView } from './traceView';

interface Target {
  doc: vscode.TextDocument;
  uri: string;
  fn: string;
}

type Model = 'SC' | 'TSO' | 'PSO';

/** The answer of the server's tsocheck.checkWorkspace. */
export interface WorkspaceCheck {
  database: string;
  files: number;
  checked: number;
  harnesses: number;
  violations: number;
  leftOut: number;
  skipped: string[];
  cancelled: boolean;
}

export class Commands {
  constructor(
    private readonly server: Server,
    private readonly status: StatusBar,
    private readonly traceView: TraceView,
    private readonly decorations: Decorations,
    private readonly picture: PictureView,
  ) {}

  register(): vscode.Disposable[] {
    const r = (id: string, f: (...args: unknown[]) => unknown) => vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await f(...args);
      } catch (e) {
        void vscode.window.showErrorMessage(`tsocheck: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      }
    });
    return [
      r('tsocheck.checkFunction', (...a) => this.checkFunction(a)),
      r('tsocheck.checkFile', (...a) => this.checkFile(a)),
      r('tsocheck.checkAllHarnesses', () => this.checkAllHarnesses()),
      r('tsocheck.openTrace', (...a) => this.openTrace(a)),
      r('tsocheck.showPicture', (...a) => this.showPicture(a)),
      r('tsocheck.insertAllFences', () => this.insertAllFences()),
      r('tsocheck.rerunSC', () => this.rerunAt('SC')),
      r('tsocheck.rerunTSO', () => this.rerunAt('TSO')),
      r('tsocheck.rerunPSO', () => this.rerunAt('PSO')),
      r('tsocheck.rerun', (...a) => this.rerunFromArgs(a)),
      r('tsocheck.debugInterleaving', (...a) => this.debugInterleaving(a)),
      r('tsocheck.showLog', () => output().show(true)),
      r('tsocheck.restartServer', () => this.server.restart()),
      r('tsocheck.revealStep', (i) => this.traceView.reveal(Number(i))),
      r('tsocheck.pickStep', () => this.traceView.pick()),
      r('tsocheck.clearTrace', () => this.traceView.clearHighlights()),
      r('tsocheck.statusBarClick', () => this.status.summary && problemsFirst(this.status.summary)
        ? vscode.commands.executeCommand('workbench.actions.view.problems')
        : output().show(true)),
    ];
  }

  private activeC(): vscode.TextEditor {
    const e = vscode.window.activeTextEditor;
    if (!e || e.document.languageId !== 'c') throw new Error('open a C file first');
    return e;
  }

  private async docFor(uri: string): Promise<vscode.TextDocument> {
    const open = vscode.workspace.textDocuments.find((d) => this.server.uriOf(d) === uri || d.uri.toString() === uri);
    return open ?? vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  }

  /** The function from command arguments (a lens: [uri, fn, ...]) or around the cursor. */
  private async target(args: unknown[]): Promise<Target | undefined> {
    if (typeof args[0] === 'string' && typeof args[1] === 'string') {
      const doc = await this.docFor(args[0]);
      return { doc, uri: args[0], fn: args[1] };
    }
    const editor = this.activeC();
    const doc = editor.document;
    const uri = this.server.uriOf(doc);
    const fns = await this.server.checks(uri);
    const here = checkAt(fns, editor.selection.active.line);
    if (here) return { doc, uri, fn: here.name };
    const names = new Set(fns.map((f) => f.name));
    for (const c of this.status.checksOf(uri) ?? []) names.add(c.function);
    for (const d of vscode.languages.getDiagnostics(doc.uri))
      if (d.source === 'tsocheck' && d.severity === vscode.DiagnosticSeverity.Error) {
        const fn = (d as vscode.Diagnostic & { data?: { function?: string } }).data?.function;
        if (fn) names.add(fn);
      }
    if (names.size === 0) throw new Error('no annotated function (TSOCHECK) in this file');
    const fn = names.size === 1 ? [...names][0] : await vscode.window.showQuickPick([...names], { placeHolder: 'Which check function?' });
    return fn ? { doc, uri, fn } : undefined;
  }

  private modelOf(uri: string, fn: string): Model {
    const m = this.status.checksOf(uri)?.find((c) => c.function === fn)?.model;
    const setting = vscode.workspace.getConfiguration('tsocheck').get<string | null>('model');
    const pick = (m ?? setting ?? 'TSO').toUpperCase();
    return pick === 'SC' || pick === 'PSO' ? pick : 'TSO';
  }

  private async checkFunction(args: unknown[]): Promise<CheckPayload | undefined> {
    const t = await this.target(args);
    if (!t) return undefined;
    const model = typeof args[2] === 'string' ? (args[2].toUpperCase() as Model) : this.modelOf(t.uri, t.fn);
    return this.rerun(t, model);
  }

  private async checkFile(args: unknown[]): Promise<void> {
    const uri = typeof args[0] === 'string' ? args[0] : this.server.uriOf(this.activeC().document);
    await this.server.executeCommand('tsocheck.recheck', [uri]);
    vscode.window.setStatusBarMessage('tsocheck: re-checking the file…', 3000);
  }

  /** Every harness of the workspace's compile database (server tsocheck.checkWorkspace): the server
   * reports "3/12 files" as cancellable work done progress and publishes each file's diagnostics. */
  private async checkAllHarnesses(): Promise<WorkspaceCheck> {
    const r = await this.server.executeCommand<WorkspaceCheck>('tsocheck.checkWorkspace', []);
    const found = `${r.harnesses} harness${r.harnesses === 1 ? '' : 'es'}, ${r.violations} violation${r.violations === 1 ? '' : 's'}`;
    const more = r.leftOut > 0 ? ` (${r.leftOut} more files not checked)` : '';
    void vscode.window.showInformationMessage(
      `tsocheck: ${r.cancelled ? 'cancelled after' : 'checked'} ${r.checked}/${r.files} files: ${found}${more}`);
    return r;
  }

  private async openTrace(args: unknown[]): Promise<CheckPayload | undefined> {
    const t = await this.target(args);
    if (!t) return undefined;
    let payload: CheckPayload;
    try {
      payload = await this.server.trace(t.uri, t.fn);
    } catch (e) {
      throw new Error(`no result for ${t.fn} yet — wait for the check to finish or run "tsocheck: Check Current File" (${e instanceof Error ? e.message : String(e)})`);
    }
    if (payload.status !== 'violation' || !payload.violation) {
      void vscode.window.showInformationMessage(`tsocheck: ${t.fn} under ${payload.model}: ${payload.status} — no trace to show.`);
      return payload;
    }
    await this.traceView.load(payload, t.doc.uri.fsPath, 'check', t.doc.version);
    await this.traceView.pick();
    return payload;
  }

  /** The server's picture of the interleaving in a webview beside the editor; returns it (null: no violation). */
  private async showPicture(args: unknown[]): Promise<Picture | null | undefined> {
    const t = await this.target(args.length ? args : this.traceArgs());
    if (!t) return undefined;
    let picture: Picture | null;
    try {
      picture = await this.server.tracePicture(t.uri, t.fn);
    } catch (e) {
      throw new Error(`no result for ${t.fn} yet — wait for the check to finish or run "tsocheck: Check Current File" (${e instanceof Error ? e.message : String(e)})`);
    }
    if (!picture) {
      void vscode.window.showInformationMessage(`tsocheck: ${t.fn} has no violation — no interleaving to draw.`);
      return null;
    }
    this.picture.show(t.fn, t.doc.uri.fsPath, picture);
    return picture;
  }

  /** From the trace view's title bar: the loaded trace's file and function (none loaded: the active editor's). */
  private traceArgs(): unknown[] {
    const l = this.traceView.loaded;
    const fn = l.payload?.function;
    if (!l.docPath || !fn || vscode.window.activeTextEditor?.document.languageId === 'c') return [];
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === l.docPath);
    return doc ? [this.server.uriOf(doc), fn] : [];
  }

  private async rerunAt(model: Model): Promise<CheckPayload | undefined> {
    const t = await this.target([]);
    return t ? this.rerun(t, model) : undefined;
  }

  private async rerunFromArgs(args: unknown[]): Promise<CheckPayload | undefined> {
    const t = await this.target(args);
    if (!t) return undefined;
    const m = typeof args[2] === 'string' ? args[2].toUpperCase() : this.modelOf(t.uri, t.fn);
    return this.rerun(t, m === 'SC' || m === 'PSO' ? m : 'TSO');
  }

  /** Runs one function under a model (server tsocheck.runWithModel) and shows the verdict. */
  private async rerun(t: Target, model: Model): Promise<CheckPayload | undefined> {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `tsocheck: checking ${t.fn} under ${model}…`, cancellable: true },
      (_p, token) => this.server.runWithModel(t.uri, t.fn, model, token),
    );
    if (!result) return undefined;
    // A trace of this function shown before is replaced by this result.
    await this.traceView.rerunOf(t.doc.uri.fsPath, t.fn);
    const version = t.doc.version;
    const runs = result.executions !== undefined ? ` (${formatCount(result.executions)} executions)` : '';
    if (result.status === 'violation') {
      // Not awaited: the command returns the verdict at once.
      void vscode.window.showWarningMessage(
        `tsocheck: ${t.fn} under ${model}: violation${runs} — ${result.violation?.message ?? result.message ?? ''}`,
        'Show Trace', 'Debug This Interleaving').then(async (choice) => {
        if (choice === 'Show Trace') {
          await this.traceView.load(result, t.doc.uri.fsPath, 'run', version);
          await this.traceView.pick();
        } else if (choice === 'Debug This Interleaving') {
          await this.startDebugging(t, model);
        }
      });
    } else if (result.status === 'verified' || result.status === 'bounded') {
      void vscode.window.showInformationMessage(`tsocheck: ${t.fn} under ${model}: ${result.status === 'verified' ? 'verified' : 'no violation (bounded)'}${runs}.`);
    } else {
      void vscode.window.showWarningMessage(`tsocheck: ${t.fn} under ${model}: ${result.status}${runs} — ${result.message ?? ''}`);
    }
    return result;
  }

  /**
   * Merges the preferred fence fix of every violating function into one edit.
   * The server's edits are for the text its check saw (none while the file is
   * being re-checked); an edit made while they were asked for voids them.
   */
  private async insertAllFences(): Promise<number> {
    const doc = this.activeC().document;
    const version = doc.version;
    const all = new vscode.Range(0, 0, doc.lineCount, 0);
    const actions = (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
      'vscode.executeCodeActionProvider', doc.uri, all, vscode.CodeActionKind.QuickFix.value)) ?? [];
    // The server's titles (executeCodeActionProvider does not carry the actions' diagnostics).
    const ours = actions.filter((a): a is vscode.CodeAction => 'edit' in a && !!a.edit &&
      /^Insert (all \d+ fences \(.*\)|.+ after (\S+ )?line \d+)( \(\+ #include <stdatomic\.h>\))?$/.test(a.title));
    log(`insertAllFences: ${actions.length} code actions (${actions.map((a) => `${a.title}${'isPreferred' in a && a.isPreferred ? ' *' : ''}`).join(', ')}), ${ours.length} fence fixes`);
    // One action per function: the preferred one (a single fence or "insert all").
    const chosen = ours.filter((a) => a.isPreferred);
    const merged = new vscode.WorkspaceEdit();
    const seen = new Set<string>();
    let fences = 0;
    for (const a of chosen)
      for (const [uri, edits] of a.edit!.entries())
        for (const e of edits) {
          const key = `${uri.toString()}@${e.range.start.line}:${e.range.start.character}:${e.newText}`;
          if (seen.has(key)) continue;
          seen.add(key);
          merged.insert(uri, e.range.start, e.newText);
          if (!e.newText.includes('#include')) fences++;
        }
    if (fences === 0) {
      void vscode.window.showInformationMessage('tsocheck: no suggested fences in this file (no violation with a fence fix, or its check of the latest edit has not ended).');
      return 0;
    }
    if (doc.version !== version) throw new Error('the file changed while the fences were asked for: run the command again');
    if (!(await vscode.workspace.applyEdit(merged))) throw new Error('the fence edit could not be applied');
    vscode.window.setStatusBarMessage(`tsocheck: inserted ${fences} fence${fences === 1 ? '' : 's'}`, 5000);
    return fences;
  }

  private async debugInterleaving(args: unknown[]): Promise<boolean> {
    const t = await this.target(args);
    if (!t) return false;
    const m = typeof args[2] === 'string' ? args[2].toUpperCase() : this.modelOf(t.uri, t.fn);
    return this.startDebugging(t, m === 'SC' || m === 'PSO' ? m : 'TSO');
  }

  private startDebugging(t: Target, model: Model): Thenable<boolean> {
    const folder = vscode.workspace.getWorkspaceFolder(t.doc.uri);
    return vscode.debug.startDebugging(folder, {
      type: debugType, request: 'launch', name: `tsocheck: replay ${t.fn} (${model})`,
      program: t.doc.uri.fsPath, function: t.fn, model: model.toLowerCase(), stopOnEntry: true,
    });
  }
}
