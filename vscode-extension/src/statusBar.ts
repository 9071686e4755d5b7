// The status bar item: the active file's state as the server words it in
// `tsocheck/status` (statusModel.ts), or diagnostics for documents without one.
import * as path from 'path';
import * as vscode from 'vscode';
import { DiagnosticLike, DocumentInput, problemsFirst, StatusParams, Summary, summarizeFor } from './statusModel';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tsocheck.status', vscode.StatusBarAlignment.Left, 10);
  private readonly statuses = new Map<string, StatusParams>();
  private readonly receivedAt = new Map<string, number>();
  private staleTimer: NodeJS.Timeout | undefined;
  private readonly diagnosed = new Set<string>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private last: Summary | undefined;

  constructor(private readonly uriOf: (d: vscode.TextDocument) => string) {
    this.item.name = 'tsocheck';
    this.item.command = 'tsocheck.statusBarClick';
    this.subscriptions.push(
      vscode.languages.onDidChangeDiagnostics(() => this.render()),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.statuses.delete(this.uriOf(d));
        this.diagnosed.delete(d.uri.toString());
        this.render();
      }),
      vscode.workspace.onDidOpenTextDocument(() => this.render()),
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
    );
    this.render();
    this.item.show();
  }

  get summary(): Summary | undefined {
    return this.last;
  }

  onStatus(p: StatusParams): void {
    this.statuses.set(p.uri, p);
    this.receivedAt.set(p.uri, Date.now());
    this.render();
    if (p.checking) {
      // A running check reports every ~250 ms; a cancelled one may end without a last word.
      if (this.staleTimer) clearTimeout(this.staleTimer);
      this.staleTimer = setTimeout(() => this.render(), StatusBar.staleMs + 100);
    }
  }

  static readonly staleMs = 10000;

  private statusFor(uri: string): StatusParams | undefined {
    const s = this.statuses.get(uri);
    if (s?.checking && Date.now() - (this.receivedAt.get(uri) ?? 0) > StatusBar.staleMs) return { ...s, checking: false };
    return s;
  }

  onDiagnostics(uri: vscode.Uri): void {
    this.diagnosed.add(uri.toString());
    this.render();
  }

  /** The model and function names the server reported for a document. */
  checksOf(uri: string): StatusParams['checks'] {
    return this.statuses.get(uri)?.checks;
  }

  /** The server stopped: nothing it said still holds. */
  reset(): void {
    this.statuses.clear();
    this.receivedAt.clear();
    this.diagnosed.clear();
    this.render();
  }

  render(): void {
    const docs: DocumentInput[] = [];
    for (const d of vscode.workspace.textDocuments) {
      if (d.languageId !== 'c' || d.uri.scheme !== 'file') continue;
      const diagnostics: DiagnosticLike[] = vscode.languages.getDiagnostics(d.uri).map((x) => ({
        severity: x.severity, source: x.source,
        code: typeof x.code === 'object' ? { value: x.code.value } : x.code,
      }));
      docs.push({
        uri: d.uri.toString(), name: path.basename(d.uri.fsPath),
        status: this.statusFor(this.uriOf(d)),
        diagnosed: this.diagnosed.has(d.uri.toString()) || diagnostics.some((x) => x.source === 'tsocheck'),
        diagnostics,
      });
    }
    const s = summarizeFor(docs, vscode.window.activeTextEditor?.document.uri.toString());
    this.last = s;
    this.item.text = s.text;
    this.item.tooltip = s.tooltip + (problemsFirst(s) ? '\n\nClick for the Problems panel' : '\n\nClick for the server log');
    this.item.backgroundColor = s.kind === 'violations' || s.kind === 'input-error' ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : s.kind === 'inconclusive' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    if (this.staleTimer) clearTimeout(this.staleTimer);
    this.item.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
