// The "tsocheck" output channel: the server's log and the extension's own notes.
import * as vscode from 'vscode';

let channel: vscode.OutputChannel | undefined;

export function output(): vscode.OutputChannel {
  if (!channel) channel = vscode.window.createOutputChannel('tsocheck');
  return channel;
}

export function log(message: string): void {
  output().appendLine(`[extension ${new Date().toISOString().slice(11, 23)}] ${message}`);
}
