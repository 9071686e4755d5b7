-- Diagnostics and lenses: tsocheck/status and $/progress in the message area
-- and the statusline, code lenses refreshed after every check, and the lens
-- commands run on the client.
local util = require('tsocheck.util')
local config = util.config
local notify, request, buf_of_uri, thousands = util.notify, util.request, util.buf_of_uri, util.thousands

local M = {}

-- uri -> { checking = bool, executions = n, checks = summary of the last check, file = { state, text } }
local status_by_uri = {}
-- uri -> { function name } waiting for "re-checked: ..."
local rechecks = {}

-- The server words each file's state once (`file` of tsocheck/status:
-- verified, bounded and what cut it, a violation, does not compile, timed
-- out, not checked); this only puts a mark before it.
local state_marks = { verified = '✓ ', violation = '✗ ', ['input-error'] = '✗ ', timeout = '⧗ ' }

local function summary_text(st)
  if not st then return '' end
  if st.checking then
    return 'checking… ' .. thousands(st.executions) .. ' executions'
  end
  local f = st.file
  if type(f) ~= 'table' or type(f.text) ~= 'string' then return 'not checked yet' end
  return (state_marks[f.state] or '') .. f.text
end

--- For the statusline: the state of the current (or given) buffer's checks,
--- '' when tsocheck does not handle the buffer.
function M.status(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) then return '' end
  local st = status_by_uri[vim.uri_from_bufnr(bufnr)]
  if not st then return '' end
  return 'tsocheck: ' .. summary_text(st)
end

local function echo(msg)
  if not config.progress then return end
  -- Not in the message history: progress is transient.
  pcall(vim.api.nvim_echo, { { util.fit(msg) } }, false, {})
end

local function status_changed()
  pcall(vim.cmd, 'redrawstatus')
  util.fire('TsocheckStatus')
end

-- Re-requests the lenses of bufnr from client (Neovim 0.7 never does it by
-- itself, and does not clear lenses when the new list is empty).
local function refresh_lenses(client, bufnr)
  if not client or not bufnr or not vim.api.nvim_buf_is_loaded(bufnr) then return end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  pcall(request, client, 'textDocument/codeLens', params, function(err, result, ctx, cfg)
    if err then return end
    if not vim.api.nvim_buf_is_loaded(bufnr) then return end
    ctx = ctx or {}
    ctx.bufnr, ctx.client_id = bufnr, client.id
    if result == nil or result == vim.NIL or #result == 0 then
      local nsl = vim.lsp.codelens.__namespaces and vim.lsp.codelens.__namespaces[client.id]
      if nsl then pcall(vim.api.nvim_buf_clear_namespace, bufnr, nsl, 0, -1) end
      pcall(vim.lsp.codelens.save, {}, bufnr, client.id)
      return
    end
    vim.lsp.codelens.on_codelens(err, result, ctx, cfg)
    util.fire('TsocheckLensesRefreshed')
  end, bufnr)
end

local function on_status(err, result, ctx)
  if err or type(result) ~= 'table' or type(result.uri) ~= 'string' then return end
  local prev = status_by_uri[result.uri] or {}
  local st = {
    checking = result.checking == true,
    executions = tonumber(result.executions) or 0,
    checks = type(result.checks) == 'table' and result.checks or prev.checks,
    file = type(result.file) == 'table' and result.file or nil,
  }
  status_by_uri[result.uri] = st
  local name = vim.fn.fnamemodify(vim.uri_to_fname(result.uri), ':t')
  echo('tsocheck: ' .. name .. ': ' .. summary_text(st))
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  local bufnr = buf_of_uri(result.uri)
  if not st.checking then
    local waiting = rechecks[result.uri]
    if waiting then
      rechecks[result.uri] = nil
      local parts = {}
      for _, c in ipairs(st.checks or {}) do
        if not waiting.fn or c['function'] == waiting.fn then
          table.insert(parts, string.format('`%s` under %s: %s (%s executions)', tostring(c['function']),
            tostring(c.model), tostring(c.status), thousands(c.executions)))
        end
      end
      notify('re-checked: ' .. (#parts > 0 and table.concat(parts, '; ') or name))
    end
  end
  -- Lenses show "checking… N executions" while a check runs: refresh at the
  -- start and the end (not on every progress report).
  if st.checking ~= (prev.checking == true) or not st.checking then refresh_lenses(client, bufnr) end
  status_changed()
end

-- $/progress: the server's work done progress ("checking FILE", then "N
-- executions" every 250 ms); the default handler keeps it in client.messages.
local function on_progress(err, result, ctx, cfg)
  local default = vim.lsp.handlers['$/progress']
  if default then pcall(default, err, result, ctx, cfg) end
  if err or type(result) ~= 'table' or type(result.value) ~= 'table' then return end
  local v = result.value
  local parts = {}
  if type(v.title) == 'string' and v.title ~= '' and v.title ~= 'tsocheck' then table.insert(parts, v.title) end
  if type(v.message) == 'string' and v.message ~= '' then table.insert(parts, v.message) end
  if type(v.percentage) == 'number' and v.percentage > 0 then table.insert(parts, string.format('(%d%%)', v.percentage)) end
  if v.kind ~= 'end' and #parts > 0 then echo('tsocheck: ' .. table.concat(parts, ' ')) end
  status_changed()
end

local function on_publish(err, result, ctx, cfg)
  vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, cfg)
  if err or type(result) ~= 'table' then return end
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  local bufnr = buf_of_uri(result.uri)
  refresh_lenses(client, bufnr)
  if client and bufnr then pcall(require('tsocheck.trace').results_replaced, client, bufnr) end
end

-- The client's handlers for the server's notifications.
M.handlers = {
  ['textDocument/publishDiagnostics'] = on_publish,
  ['tsocheck/status'] = on_status,
  ['$/progress'] = on_progress,
}

-- Lens commands, run on the client.
local lens_commands = {}

-- Neovim 0.7 clears the lens line before running a lens: draw them again.
local function redraw_lenses(ctx)
  refresh_lenses(vim.lsp.get_client_by_id(ctx.client_id), ctx.bufnr)
end

lens_commands['tsocheck.showTrace'] = function(command, ctx)
  local args = command.arguments or {}
  local bufnr = buf_of_uri(args[1]) or ctx.bufnr
  local trace = require('tsocheck.trace')
  redraw_lenses(ctx)
  vim.api.nvim_create_autocmd('User', {
    pattern = 'TsocheckTraceLoaded', once = true,
    callback = function() trace.step('first') end,
  })
  trace.trace(args[2], bufnr)
end

lens_commands['tsocheck.recheck'] = function(command, ctx)
  local args = command.arguments or {}
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client or type(args[1]) ~= 'string' then return end
  rechecks[args[1]] = { fn = type(args[2]) == 'string' and args[2] or nil }
  redraw_lenses(ctx)
  notify('re-checking ' .. (type(args[2]) == 'string' and ('`' .. args[2] .. '`') or 'the file') .. '…')
  request(client, 'workspace/executeCommand', { command = command.command, arguments = args }, function(err)
    if err then
      rechecks[args[1]] = nil
      notify('re-run failed: ' .. util.error_text(err), vim.log.levels.ERROR)
    end
  end, ctx.bufnr)
end

lens_commands['tsocheck.runWithModel'] = function(command, ctx)
  local args = command.arguments or {}
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then return end
  notify('checking `' .. tostring(args[2]) .. '` under ' .. tostring(args[3]) .. '…')
  redraw_lenses(ctx)
  -- The server answers with the check and says its verdict (window/showMessage).
  request(client, 'workspace/executeCommand', { command = command.command, arguments = args }, function(err)
    if err then
      notify('run under ' .. tostring(args[3]) .. ' failed: ' .. util.error_text(err), vim.log.levels.ERROR)
    end
  end, ctx.bufnr)
end

M.lens_commands = lens_commands

return M
