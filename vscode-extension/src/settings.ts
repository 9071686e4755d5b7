// The settings the language server reads: the check options of
// service/check_options.h by their settings keys, and the server's own
// (lsp/lsp_settings.cpp). Pure.

export const serverSettingKeys = [
  'model', 'bufferBound', 'preemptionBound', 'loopBound', 'timeLimit', 'memoryLimit', 'nondetRange', 'fenceStyle',
  'compileCommandsDir', 'checkOn', 'maxWorkers', 'debounceMs', 'robustness', 'deadlocks', 'stateful', 'stepLimit',
  'abort', 'fences', 'raceCheck', 'exitEndsProgram', 'keepGoing', 'keepBound', 'main', 'fenceTimeLimit', 'jobs', 'exploreOrder',
] as const;

export type ServerSettingKey = (typeof serverSettingKeys)[number];

/** The server's part of the `tsocheck` configuration section (unset values as null, which the server takes as "default"). */
export function serverSettings(get: (key: string) => unknown): Record<ServerSettingKey, unknown> {
  const out = {} as Record<ServerSettingKey, unknown>;
  for (const k of serverSettingKeys) {
    const v = get(k);
    // "default" (the model's choice "from annotation / default") is unset too.
    out[k] = v === undefined || v === 'default' || v === '' && k !== 'compileCommandsDir' ? null : v;
  }
  return out;
}
