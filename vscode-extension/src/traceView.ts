// The "tsocheck Trace" tree view and a QuickPick over the same steps; choosing
// a step reveals its line and shows the buffers at that point. The view names
// the file its trace is from and follows the active editor: another C file in
// front shows that file's violation trace, or empties the view.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { workspaceRoots } from './client';
import { Decorations } from './decorations';
import { shortStepLabel } from './format';
import { log } from './log';
import {
  buffersText, CheckPayload, memoryText, pendingAfter, planDecorations, resolveFile, staleReadAt, stepLabel, summaryLines, TraceStep,
} from './traceModel';

type Node = { kind: 'root' } | { kind: 'step'; index: number } | { kind: 'violation' };

const eventIcons: Record<string, string> = {
  store: 'arrow-right', flush: 'cloud-upload', 'load-memory': 'arrow-left', 'load-buffer': 'reply',
  spawn: 'debug-start', join: 'merge', exit: 'debug-stop', fence: 'debug-breakpoint-log-unverified', rmw: 'sync',
  lock: 'lock', unlock: 'unlock', blocked: 'debug-pause',
};

export class TraceView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private payload: CheckPayload | undefined;
  private docPath: string | undefined;
  private steps: TraceStep[] = [];
  private readonly root: Node = { kind: 'root' };
  private readonly stepNodes: Node[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  /** Bumped by every reveal and clear: a slower earlier reveal must not win. */
  private generation = 0;

  constructor(private readonly decorations: Decorations) {
    this.view = vscode.window.createTreeView('tsocheck.trace', { treeDataProvider: this, showCollapseAll: false });
  }

  /** Where the loaded trace came from: the document's check (its diagnostics) or a re-run under a model. */
  private origin: 'check' | 'run' = 'check';
  /** Bumped by every load and clear: a refresh that finds a newer trace loaded gives up. */
  private loads = 0;

  get loaded(): { payload?: CheckPayload; steps: TraceStep[]; docPath?: string; origin?: 'check' | 'run' } {
    return { payload: this.payload, steps: this.steps, docPath: this.payload ? this.docPath : undefined, origin: this.payload ? this.origin : undefined };
  }

  async load(payload: CheckPayload, docPath: string, origin: 'check' | 'run' = 'check', version?: number): Promise<void> {
    this.loads++;
    this.awaiting = undefined;
    this.clearHighlights();
    this.origin = origin;
    this.version = version;
    this.payload = payload;
    this.docPath = path.normalize(docPath);
    this.steps = payload.violation?.trace ?? [];
    this.stepNodes.length = 0;
    this.steps.forEach((_, index) => this.stepNodes.push({ kind: 'step', index }));
    await vscode.commands.executeCommand('setContext', 'tsocheck.hasTrace', true);
    this.following = true;
    this.view.title = `tsocheck Trace: ${payload.function}`;
    this.view.description = `${path.basename(this.docPath)} · ${payload.model}`;
    this.changed.fire(undefined);
    try {
      await this.view.reveal(this.root, { expand: true, focus: false, select: false });
    } catch { /* the view may be hidden */ }
  }

  /** Empties the view and removes its highlights. */
  async clear(why?: string): Promise<void> {
    if (!this.payload) return;
    this.loads++;
    if (why) log(`trace view cleared: ${why}`);
    this.payload = undefined;
    this.steps = [];
    this.stepNodes.length = 0;
    this.clearHighlights();
    this.view.title = 'tsocheck Trace';
    this.view.description = undefined;
    this.changed.fire(undefined);
    await vscode.commands.executeCommand('setContext', 'tsocheck.hasTrace', false);
  }

  /**
   * The results of `file` were replaced (new diagnostics for it). A trace from
   * the document's check is fetched again (`fetch`): the same trace stays as
   * it is, another one is loaded in its place (highlights cleared), none
   * (fixed, no result) empties the view. A trace from a re-run under a model
   * is cleared when the document changed since it was loaded.
   */
  async resultsReplaced(file: string, version: number | undefined, fetch: (fn: string) => Promise<CheckPayload | undefined>): Promise<void> {
    const p = this.payload;
    if (!p || !this.docPath || path.normalize(file) !== this.docPath) return;
    if (this.origin === 'run') {
      if (version !== undefined && version !== this.version) await this.clear(`${path.basename(file)} changed after the re-run of ${p.function}`);
      return;
    }
    const gen = this.loads;
    let next: CheckPayload | undefined;
    try {
      next = await fetch(p.function);
    } catch {
      next = undefined;
    }
    if (gen !== this.loads) return;  // another trace was loaded (or cleared) meanwhile
    if (next?.status === 'violation' && next.violation?.trace?.length) {
      if (next.model === p.model && JSON.stringify(next.violation) === JSON.stringify(p.violation)) return;
      log(`trace view: new trace of ${p.function} (${next.model}) after new results for ${path.basename(file)}`);
      await this.load(next, file, 'check', version);
    } else {
      await this.clear(`${p.function} in ${path.basename(file)}: ${next ? `${next.status} now` : 'no result any more'}`);
    }
  }

  /** Whether the view follows the active editor (from the first trace shown on). */
  private following = false;
  /** The file in front that had no trace when it came there (its results may follow). */
  private awaiting: string | undefined;

  /**
   * Another C file came to the front: the view shows its violation trace
   * (`fetch`: undefined when it has none) or empties. The trace's own file, and
   * the files its steps are in (a reveal opens them), keep the trace.
   * `resultsCame`: the file's check ended after it came to the front (only a
   * file the view is still waiting for is looked at again).
   */
  async activeFileChanged(file: string, version: number | undefined, fetch: () => Promise<CheckPayload | undefined>, resultsCame = false): Promise<void> {
    if (!this.following) return;
    const f = path.normalize(file);
    if (resultsCame && this.awaiting !== f) return;
    if (this.payload && (f === this.docPath || this.steps.some((s) => s.file && this.resolve(s.file) === f))) return;
    const gen = this.loads;
    let next: CheckPayload | undefined;
    try {
      next = await fetch();
    } catch {
      next = undefined;
    }
    if (gen !== this.loads) return;  // another trace was loaded (or cleared) meanwhile
    if (next?.status === 'violation' && next.violation?.trace?.length) return this.load(next, file, 'check', version);
    await this.clear(`${path.basename(file)} is in front and has no violation trace`);
    this.awaiting = f;
  }

  /** The document was closed: its trace goes. */
  async documentClosed(file: string): Promise<void> {
    if (this.payload && this.docPath === path.normalize(file)) await this.clear(`${path.basename(file)} was closed`);
  }

  /** `fn` of `file` was re-run: the trace of that function goes (the re-run offers its own). */
  async rerunOf(file: string, fn: string): Promise<void> {
    if (this.payload && this.docPath === path.normalize(file) && this.payload.function === fn) await this.clear(`${fn} was re-run`);
  }

  /** The document version the trace was loaded at (undefined: not known). */
  private version: number | undefined;

  getTreeItem(node: Node): vscode.TreeItem {
    const p = this.payload;
    if (node.kind === 'root') {
      const file = this.docPath ? path.basename(this.docPath) : '?';
      const item = new vscode.TreeItem(`${file}: ${p?.function ?? '?'} — ${p?.model ?? ''} ${p?.status ?? ''}`, vscode.TreeItemCollapsibleState.Expanded);
      item.description = p?.violation?.message ?? p?.message ?? '';
      item.iconPath = new vscode.ThemeIcon(p?.status === 'violation' ? 'error' : 'pass');
      item.tooltip = [`${this.docPath ?? ''}`, `${p?.function}: ${p?.message ?? ''}`, ...summaryLines(p)].join('\n');
      return item;
    }
    if (node.kind === 'violation') {
      const v = p?.violation;
      const item = new vscode.TreeItem(v?.message ?? 'violation', vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
      item.description = v?.line ? `${path.basename(v.file ?? '')}:${v.line}` : undefined;
      item.tooltip = summaryLines(p).join('\n');
      item.command = { title: 'Reveal', command: 'tsocheck.revealStep', arguments: [this.steps.length] };
      return item;
    }
    const s = this.steps[node.index];
    const item = new vscode.TreeItem(`${s.step}. ${shortStepLabel(stepLabel(s))}`, vscode.TreeItemCollapsibleState.None);
    item.description = s.line ? `${path.basename(s.file ?? '')}:${s.line}` : undefined;
    item.iconPath = s.event === 'error'
      ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
      : new vscode.ThemeIcon(eventIcons[s.event] ?? 'circle-small');
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${stepLabel(s)}**\n\n- buffers: ${buffersText(s)}\n- memory: ${memoryText(s)}`);
    item.tooltip = md;
    item.command = { title: 'Reveal', command: 'tsocheck.revealStep', arguments: [node.index] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    if (!this.payload) return [];
    if (!node) return [this.root];
    if (node.kind === 'root') return this.payload.violation ? [...this.stepNodes, ...(this.violationRow() ? [{ kind: 'violation' } as Node] : [])] : [];
    return [];
  }

  /** A row for the violation after the steps: unless the last step is the failing one already (an `error` step). */
  private violationRow(): boolean {
    const last = this.steps[this.steps.length - 1];
    return !!this.payload?.violation && last?.event !== 'error';
  }

  getParent(node: Node): Node | undefined {
    return node.kind === 'root' ? undefined : this.root;
  }

  private resolve = (file: string | undefined): string | undefined =>
    resolveFile(file, this.docPath ? [this.docPath] : [], [...(this.docPath ? [path.dirname(this.docPath)] : []), ...workspaceRoots()], fs.existsSync);

  /** Opens step `index` (0-based; steps.length = the violation) and marks the buffers at that point. */
  async reveal(index: number, preserveFocus = false): Promise<void> {
    const gen = ++this.generation;
    const v = this.payload?.violation;
    const last = index >= this.steps.length;
    const s = last ? undefined : this.steps[index];
    const file = this.resolve(s ? s.file : v?.file);
    const line = s ? s.line : v?.line;
    if (!file || !line) return;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, ((s ? s.column : v?.column) ?? 1) - 1));
    if (gen !== this.generation) return;
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preserveFocus, preview: true });
    if (gen !== this.generation) return;
    const at = last ? this.steps.length - 1 : index;
    const current = s ? { file: s.file, line: s.line, label: shortStepLabel(stepLabel(s)) } : { file: v?.file, line: v?.line, label: v?.message };
    this.decorations.show('trace', planDecorations(current, pendingAfter(this.steps, at), staleReadAt(this.steps, at), this.resolve));
  }

  /** Removes the step highlights. */
  clearHighlights(): void {
    this.generation++;
    this.decorations.clear('trace');
  }

  /** A QuickPick of the steps: moving through it previews each line. */
  async pick(): Promise<void> {
    if (!this.payload?.violation) return;
    type Item = vscode.QuickPickItem & { index: number };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = `tsocheck trace: ${this.docPath ? path.basename(this.docPath) + ': ' : ''}${this.payload.function} (${this.payload.model})`;
    qp.placeholder = 'Choose a step to reveal its line';
    qp.matchOnDescription = true;
    qp.items = [
      ...this.steps.map((s, index) => ({ index, label: shortStepLabel(stepLabel(s)), description: s.line ? `${path.basename(s.file ?? '')}:${s.line}` : '', detail: `buffers: ${buffersText(s)} · memory: ${memoryText(s)}` })),
      ...(this.violationRow() ? [{ index: this.steps.length, label: `$(error) ${this.payload.violation.message ?? 'violation'}`, description: this.payload.violation.line ? `${path.basename(this.payload.violation.file ?? '')}:${this.payload.violation.line}` : '' }] : []),
    ];
    qp.onDidChangeActive((items) => { if (items[0]) void this.reveal(items[0].index, true); });
    qp.onDidAccept(() => {
      const it = qp.selectedItems[0];
      qp.hide();
      if (it) void this.reveal(it.index);
    });
    qp.onDidHide(() => qp.dispose());
    qp.show();
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}
