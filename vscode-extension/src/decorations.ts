// Editor decorations for a trace position (debugger stop or a step chosen in
// the trace view): the current line, ghost text after buffered stores, and a
// note on a stale load.
import * as path from 'path';
import * as vscode from 'vscode';
import { DecorationPlan } from './traceModel';

export type Owner = 'debug' | 'trace';

export class Decorations implements vscode.Disposable {
  private readonly current = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('editor.stackFrameHighlightBackground'),
    borderColor: new vscode.ThemeColor('debugIcon.stepOverForeground'),
    borderStyle: 'solid',
    borderWidth: '0 0 0 3px',
    overviewRulerColor: new vscode.ThemeColor('debugIcon.stepOverForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
  });
  private readonly ghost = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
    overviewRulerColor: new vscode.ThemeColor('editorCodeLens.foreground'),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
  });
  private readonly stale = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'),
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorWarning.foreground'), fontStyle: 'italic' },
    overviewRulerColor: new vscode.ThemeColor('editorWarning.foreground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private plan: DecorationPlan | undefined;
  private owner: Owner | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.window.onDidChangeVisibleTextEditors(() => this.apply()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        // A trace shown from the view no longer matches edited text.
        if (this.owner === 'trace' && e.contentChanges.length && this.touches(e.document.uri.fsPath)) this.clear('trace');
      }),
    ];
  }

  /** The plan currently shown (tests and the API read it). */
  get shown(): { owner?: Owner; plan?: DecorationPlan } {
    return { owner: this.owner, plan: this.plan };
  }

  show(owner: Owner, plan: DecorationPlan): void {
    this.owner = owner;
    this.plan = plan;
    this.apply();
  }

  /** Clears what `owner` showed (or anything, without an owner). */
  clear(owner?: Owner): void {
    if (owner && this.owner !== owner) return;
    this.plan = undefined;
    this.owner = undefined;
    this.apply();
  }

  private touches(file: string): boolean {
    const p = this.plan;
    if (!p) return false;
    return p.current?.file === file || p.ghosts.some((g) => g.file === file) || p.notes.some((n) => n.file === file);
  }

  private apply(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const file = path.normalize(editor.document.uri.fsPath);
      const doc = editor.document;
      const lineRange = (line: number) => doc.lineAt(Math.min(Math.max(line - 1, 0), doc.lineCount - 1)).range;
      const p = this.plan;
      const cur: vscode.DecorationOptions[] = [];
      if (p?.current && p.current.file === file) {
        cur.push({ range: lineRange(p.current.line), renderOptions: p.current.label ? { after: { contentText: `◀ ${p.current.label}` } } : undefined });
      }
      const ghosts: vscode.DecorationOptions[] = (p?.ghosts ?? []).filter((g) => g.file === file).map((g) => ({
        range: new vscode.Range(lineRange(g.line).end, lineRange(g.line).end),
        hoverMessage: g.text,
        renderOptions: { after: { contentText: g.text } },
      }));
      const notes: vscode.DecorationOptions[] = (p?.notes ?? []).filter((n) => n.file === file).map((n) => ({
        range: lineRange(n.line),
        hoverMessage: n.text,
        renderOptions: { after: { contentText: `⚠ ${n.text}` } },
      }));
      // A note and the current marker on one line: the note wins the after-text.
      if (cur.length && notes.some((n) => n.range.start.line === cur[0].range.start.line)) cur[0].renderOptions = undefined;
      editor.setDecorations(this.current, cur);
      editor.setDecorations(this.ghost, ghosts);
      editor.setDecorations(this.stale, notes);
    }
  }

  dispose(): void {
    this.current.dispose();
    this.ghost.dispose();
    this.stale.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
