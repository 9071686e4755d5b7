// The "tsocheck" output channel: the server's log and the extension's own notes.
// Everything written to it is also kept (the last lines) for tests and bug reports.
import * as vscode from 'vscode';

let channel: vscode.OutputChannel | undefined;
const kept: string[] = [];
let partial = '';
const keep = 2000;

function record(text: string): void {
  const parts = (partial + text).split('\n');
  partial = parts.pop() ?? '';
  kept.push(...parts);
  if (kept.length > keep) kept.splice(0, kept.length - keep);
}

/** The channel (created on first use); writes are recorded for recentOutput(). */
export function output(): vscode.OutputChannel {
  if (!channel) {
    const real = vscode.window.createOutputChannel('tsocheck');
    channel = {
      get name() { return real.name; },
      append: (v: string) => { record(v); real.append(v); },
      appendLine: (v: string) => { record(v + '\n'); real.appendLine(v); },
      replace: (v: string) => { kept.length = 0; partial = ''; record(v); real.replace(v); },
      clear: () => { kept.length = 0; partial = ''; real.clear(); },
      show: (a?: unknown, b?: boolean) => (typeof a === 'boolean' || a === undefined ? real.show(a as boolean | undefined) : real.show(a as vscode.ViewColumn, b)),
      hide: () => real.hide(),
      dispose: () => { real.dispose(); channel = undefined; },
    } as vscode.OutputChannel;
  }
  return channel;
}

/** The channel's last lines (at most 2000), oldest first. */
export function recentOutput(): string[] {
  return partial ? [...kept, partial] : [...kept];
}

export function log(message: string): void {
  output().appendLine(`[extension ${new Date().toISOString().slice(11, 23)}] ${message}`);
}
