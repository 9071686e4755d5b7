// The interleaving picture: the server's page (tsocheck/tracePicture, drawn
// by the server) in a webview beside the editor. The page may run only its own
// inline script (a nonce) and style, nothing remote; a click on a step posts
// {step, file, line} and the step's line is revealed.
import * as crypto from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';

/** What the server answers to tsocheck/tracePicture (null: no violation). */
export interface Picture {
  html: string;
  text: string;
}

/** A step clicked in the page. */
export interface PickedStep {
  step: number;
  file: string;
  line: number;
}

/** The server's page under a strict content security policy: its inline script only with the nonce, no remote loads. */
export function withCsp(html: string, nonce: string): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'`;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp}">`;
  const page = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n?/gi, '');
  const withMeta = /<head>/i.test(page) ? page.replace(/<head>/i, `<head>\n${meta}`) : meta + page;
  return withMeta.replace(/<script>/gi, `<script nonce="${nonce}">`);
}

/** A click's message, or undefined when it is not one. */
export function pickedStep(m: unknown): PickedStep | undefined {
  const o = m as Partial<PickedStep> | undefined;
  if (!o || typeof o.file !== 'string' || typeof o.line !== 'number' || typeof o.step !== 'number') return undefined;
  if (!Number.isInteger(o.line) || o.line < 0 || o.file === '') return undefined;
  return { step: o.step, file: o.file, line: o.line };
}

export class PictureView implements vscode.Disposable {
  panel: vscode.WebviewPanel | undefined;
  /** The server's html the panel shows (before the CSP is put in). */
  shownHtml: string | undefined;
  /** The steps revealed from the page, latest last. */
  readonly revealed: PickedStep[] = [];
  private docPath = '';
  private subscriptions: vscode.Disposable[] = [];

  /** Shows `picture` of `fn` (a check of the file at docPath) beside the active editor. */
  show(fn: string, docPath: string, picture: Picture): vscode.WebviewPanel {
    this.docPath = docPath;
    const title = `Interleaving: ${fn}`;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('tsocheck.picture', title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, localResourceRoots: [], enableFindWidget: true });
      this.subscriptions.push(
        this.panel.webview.onDidReceiveMessage((m) => { void this.reveal(m); }),
        this.panel.onDidDispose(() => {
          this.panel = undefined;
          this.shownHtml = undefined;
          for (const d of this.subscriptions.splice(0)) d.dispose();
        }),
      );
    } else {
      this.panel.title = title;
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    this.shownHtml = picture.html;
    this.panel.webview.html = withCsp(picture.html, crypto.randomBytes(16).toString('base64'));
    return this.panel;
  }

  /** A click in the page: opens the step's file (relative names: beside the checked file) at its line. */
  async reveal(message: unknown): Promise<void> {
    const s = pickedStep(message);
    if (!s) return;
    const file = path.isAbsolute(s.file) ? s.file : path.join(path.dirname(this.docPath), s.file);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const line = Math.max(0, Math.min(s.line - 1, doc.lineCount - 1));
    const range = new vscode.Range(line, 0, line, 0);
    // The source column: not the picture's.
    const column = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === doc.uri.fsPath)?.viewColumn
      ?? vscode.ViewColumn.One;
    await vscode.window.showTextDocument(doc, { viewColumn: column, selection: range, preserveFocus: false });
    this.revealed.push(s);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}
