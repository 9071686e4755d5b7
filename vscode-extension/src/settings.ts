// The settings the language server reads: the check options of
// service/check_options.h by their settings keys, and the server's own
// (lsp/lsp_settings.cpp). Pure.

export const serverSettingKeys = [
  'model', 'bufferBound', 'preemptionBound', 'loopBound', 'timeLimit', 'memoryLimit', 'nondetRange', 'fenceStyle',
  'compileCommandsDir', 'checkOn', 'maxWorkers', 'debounceMs', 'compareModels', 'robustness', 'deadlocks', 'stateful', 'stepLimit',
  'abort', 'fences', 'raceCheck', 'exitEndsProgram', 'spuriousWakeups', 'keepGoing', 'keepBound', 'main', 'fenceTimeLimit', 'jobs', 'exploreOrder',
] as const;

export type ServerSettingKey = (typeof serverSettingKeys)[number];

/**
 * The server's part of the `tsocheck` configuration section, for
 * initializationOptions and workspace/didChangeConfiguration alike. A value
 * at its default goes as null ("reset to the default"): "default" (the
 * model's "from annotation / default") and "" (an empty compileCommandsDir:
 * search upward) included.
 */
export function serverSettings(get: (key: string) => unknown): Record<ServerSettingKey, unknown> {
  const out = {} as Record<ServerSettingKey, unknown>;
  for (const k of serverSettingKeys) {
    const v = get(k);
    out[k] = v === undefined || v === 'default' || v === '' ? null : v;
  }
  return out;
}

/** What WorkspaceConfiguration.inspect() gives for a setting. */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * A setting that names a program to run: the user's value (or the default)
 * unless the workspace is trusted, when a workspace's own value counts too
 * (as package.json's machine-overridable scope and restrictedConfigurations
 * declare): a cloned repository cannot pick the program in restricted mode.
 */
export function executableSetting(i: Inspected<string> | undefined, workspaceTrusted: boolean): string | undefined {
  if (!i) return undefined;
  if (workspaceTrusted) return i.workspaceFolderValue ?? i.workspaceValue ?? i.globalValue ?? i.defaultValue;
  return i.globalValue ?? i.defaultValue;
}
