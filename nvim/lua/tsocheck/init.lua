-- tsocheck.nvim: tsocheck in Neovim (0.7+), over LSP only.
--
-- Setup (init.lua; the directory nvim of the tsocheck tree on 'runtimepath'):
--
--   vim.opt.runtimepath:append('/path/to/tsocheck/nvim')
--   require('tsocheck').setup({
--     init_options = { checkOn = 'change' },   -- server settings (defaults: a
--                                              -- check's TSOCHECK_WITH wins)
--     -- cmd = { '/path/to/tsocheck', 'lsp' }, -- default: see M.server_path()
--     -- root_dir = string or function(bufnr) -> string (default: the cwd)
--   })
--
-- The server binary (M.server_path): the `cmd` option if given, else the
-- development build build/lsp/tsocheck of the tree this module lives in, else
-- `tsocheck` on PATH. When none is executable, setup() says so once with
-- vim.notify and attaches nothing.
--
-- setup() starts one `tsocheck lsp` client per root directory and attaches it
-- to every C buffer under that root. Commands:
--
--   :TsocheckTrace [function]  load the trace of a check into the quickfix list
--                              (one entry per step) and open it. Without an
--                              argument: the check function whose body holds
--                              the cursor, else the tsocheck diagnostic on the
--                              cursor line, else the buffer's first violation.
--                              A check without a violation only reports its
--                              status and message.
--   :TsocheckStep {next|prev|first|last|current|close}
--                              walk the loaded trace: jump to the step and
--                              show a float with the step, every thread's
--                              store buffer (oldest first) and the shared
--                              memory values known at that point. `current`
--                              shows the step at the quickfix index (after a
--                              :cnext), `close` closes the float.
--   :TsocheckWorkspace         check every harness of the workspace's compile
--                              database (lua/tsocheck/workspace.lua); again
--                              while it runs: cancel.
--
-- Code lenses (vim.lsp.codelens.run() on the lens line) are refreshed after
-- every publishDiagnostics and at the start and end of every check; the lens
-- commands run here: "show trace" loads the quickfix list and shows the first
-- step's float, "re-run" says "re-checked: ..." when the check ends, "run
-- under M" reports the verdict under M.
--
-- Status: `tsocheck/status` and `$/progress` are echoed in the message area
-- (option `progress = false` turns that off); require('tsocheck').status() is
-- a statusline function. After a trace is loaded the autocommand event
-- `User TsocheckTraceLoaded` fires, after a status change `User TsocheckStatus`.
--
-- The loaded trace follows its buffer's results: new diagnostics bring the
-- check's new trace into the same quickfix list (float and highlight closed);
-- a check without a violation any more, or deleting the buffer, clears it
-- (`User TsocheckTraceCleared`).

local M = {}

local config = {
  name = 'tsocheck',
  cmd = nil, -- nil: M.server_path()
  init_options = {},
  progress = true, -- echo tsocheck/status and $/progress in the message area
  filetypes = { 'c' },
  root_dir = nil,
  on_attach = nil,
  capabilities = nil,
}

-- root_dir -> client id
local clients = {}

-- The loaded trace and the step shown.
local trace = {
  steps = nil, -- array of step tables from the server
  check = nil, -- the check JSON (function, model, status, ...)
  bufnr = nil, -- the buffer the trace was requested for
  root = nil, -- the client's root directory (relative trace files)
  index = 0, -- 0: before the first step
  qfid = nil, -- id of the quickfix list we filled
  fn = nil, -- the check function of the trace
}
local float = { win = nil, buf = nil }
local ns = vim.api.nvim_create_namespace('tsocheck_trace')

local function notify(msg, level)
  vim.notify('tsocheck: ' .. msg, level or vim.log.levels.INFO)
end

local function is_nil(v)
  return v == nil or v == vim.NIL
end

local function value_text(v)
  if is_nil(v) then return '?' end
  return tostring(v)
end

-- ---------------------------------------------------------------------------
-- Client

local function root_for(bufnr)
  local r = config.root_dir
  if type(r) == 'function' then r = r(bufnr) end
  if type(r) ~= 'string' or r == '' then r = vim.fn.getcwd() end
  return r
end

local function client_alive(id)
  local c = id and vim.lsp.get_client_by_id(id)
  if not c then return nil end
  if c.is_stopped and c.is_stopped() then return nil end
  return c
end

local function request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- The tsocheck tree this module belongs to: .../nvim/lua/tsocheck/init.lua.
local function module_tree()
  local src = debug.getinfo(1, 'S').source
  if type(src) ~= 'string' or src:sub(1, 1) ~= '@' then return nil end
  return vim.fn.fnamemodify(src:sub(2), ':p:h:h:h:h')
end

local function executable_file(p)
  return type(p) == 'string' and p ~= '' and vim.fn.executable(p) == 1
end

--- Where the server binary is, like the VS Code extension: the `cmd` option
--- (cmd[1]; a bare name is looked up on PATH, never replaced by another
--- binary), else the development build <tree>/build/lsp/tsocheck, else
--- `tsocheck` on PATH. Returns path, source ('cmd'|'development'|'PATH') or
--- nil, { places tried }.
function M.server_path(cmd)
  cmd = cmd or config.cmd
  if type(cmd) == 'string' then cmd = { cmd } end
  local tried = {}
  if type(cmd) == 'table' and cmd[1] then
    local exe = vim.fn.expand(tostring(cmd[1]))
    table.insert(tried, exe)
    if exe:find('/', 1, true) then
      if executable_file(exe) then return exe, 'cmd' end
    else
      local found = vim.fn.exepath(exe)
      if found ~= '' then return found, 'cmd' end
    end
    return nil, tried
  end
  local tree = module_tree()
  if tree then
    local dev = tree .. '/build/lsp/tsocheck'
    table.insert(tried, dev)
    if executable_file(dev) then return dev, 'development' end
  end
  table.insert(tried, 'tsocheck on PATH')
  local found = vim.fn.exepath('tsocheck')
  if found ~= '' then return found, 'PATH' end
  return nil, tried
end

--- The command that starts the language server (nil when there is no binary).
function M.server_cmd()
  local exe = M.server_path()
  if not exe then return nil end
  local cmd = { exe }
  if type(config.cmd) == 'table' and #config.cmd > 1 then
    for i = 2, #config.cmd do table.insert(cmd, config.cmd[i]) end
  else
    table.insert(cmd, 'lsp')
  end
  return cmd
end

--- An nvim-dap adapter for `tsocheck dap` (same binary as the server):
---   require('dap').adapters.tsocheck = require('tsocheck').dap_adapter()
function M.dap_adapter()
  local exe, tried = M.server_path()
  if not exe then
    notify('no tsocheck binary for the debug adapter (looked at: ' .. table.concat(tried, ', ') .. ')',
      vim.log.levels.ERROR)
    return nil
  end
  return { type = 'executable', command = exe, args = { 'dap' } }
end

local warned_missing = false

-- ---------------------------------------------------------------------------
-- Status, progress, lenses

-- uri -> { checking = bool, executions = n, checks = summary of the last check, file = { state, text } }
local status_by_uri = {}
-- uri -> { function name } waiting for "re-checked: ..."
local rechecks = {}

local function buf_of_uri(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then return nil end
  local b = vim.fn.bufnr(fname)
  if b == -1 or not vim.api.nvim_buf_is_loaded(b) then return nil end
  return b
end

local function thousands(n)
  local s = tostring(math.floor(tonumber(n) or 0))
  local out = s:reverse():gsub('(%d%d%d)', '%1,'):reverse()
  return (out:gsub('^,', ''))
end

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
--- '' when tsocheck does not handle the buffer. For instance
---   vim.o.statusline = '%f %{luaeval("require(\'tsocheck\').status()")}'
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
  pcall(vim.api.nvim_echo, { { msg } }, false, {})
end

local function status_changed(uri)
  pcall(vim.cmd, 'redrawstatus')
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckStatus', modeline = false })
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
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckLensesRefreshed', modeline = false })
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
  status_changed(result.uri)
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
  status_changed(nil)
end

local trace_results_replaced  -- (client, bufnr): defined with the trace below

local function on_publish(err, result, ctx, cfg)
  vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, cfg)
  if err or type(result) ~= 'table' then return end
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  local bufnr = buf_of_uri(result.uri)
  refresh_lenses(client, bufnr)
  if client and bufnr then pcall(trace_results_replaced, client, bufnr) end
end

-- Lens commands, run on the client.
local lens_commands = {}

-- Neovim 0.7 clears the lens line before running a lens: draw them again.
local function redraw_lenses(ctx)
  refresh_lenses(vim.lsp.get_client_by_id(ctx.client_id), ctx.bufnr)
end

lens_commands['tsocheck.showTrace'] = function(command, ctx)
  local args = command.arguments or {}
  local bufnr = buf_of_uri(args[1]) or ctx.bufnr
  redraw_lenses(ctx)
  vim.api.nvim_create_autocmd('User', {
    pattern = 'TsocheckTraceLoaded', once = true,
    callback = function() M.step('first') end,
  })
  M.trace(args[2], bufnr)
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
      notify('re-run failed: ' .. tostring(type(err) == 'table' and err.message or err), vim.log.levels.ERROR)
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
      notify('run under ' .. tostring(args[3]) .. ' failed: ' .. tostring(type(err) == 'table' and err.message or err),
        vim.log.levels.ERROR)
    end
  end, ctx.bufnr)
end

M.lens_commands = lens_commands

local function attach(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then return end
  local root = root_for(bufnr)
  local id = clients[root]
  if not client_alive(id) then
    local cmd = M.server_cmd()
    if not cmd then
      if not warned_missing then
        warned_missing = true
        local _, tried = M.server_path()
        notify('cannot start the language server: no tsocheck binary (looked at: ' .. table.concat(tried, ', ')
          .. '). Build it (cmake --build build) or pass cmd = { \'/path/to/tsocheck\', \'lsp\' } to setup().',
          vim.log.levels.ERROR)
      end
      return
    end
    local ok, res = pcall(vim.lsp.start_client, {
      name = config.name,
      cmd = cmd,
      root_dir = root,
      -- An empty Lua table would be sent as [] (the server wants an object).
      init_options = next(config.init_options or {}) and config.init_options or vim.empty_dict(),
      on_attach = config.on_attach,
      capabilities = config.capabilities,
      commands = lens_commands,
      handlers = {
        ['textDocument/publishDiagnostics'] = on_publish,
        ['tsocheck/status'] = on_status,
        ['$/progress'] = on_progress,
      },
    })
    if not ok or not res then
      notify('cannot start the language server ' .. table.concat(cmd, ' ') .. ': ' .. tostring(res),
        vim.log.levels.ERROR)
      return
    end
    id = res
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

-- The tsocheck client attached to bufnr, or nil.
local function client_for(bufnr)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = config.name })
  else
    list = vim.lsp.buf_get_clients(bufnr)
  end
  for _, c in pairs(list or {}) do
    if c.name == config.name and not (c.is_stopped and c.is_stopped()) then return c end
  end
  return nil
end

-- ---------------------------------------------------------------------------
-- Which check function

-- Check functions of the buffer: { {name=, first=, last=} } with 1-based
-- lines; `last` is where the body's braces close (approximate: braces in
-- strings and comments count too).
local function check_functions(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local out = {}
  for i, l in ipairs(lines) do
    local s, e = l:find('TSOCHECK', 1, true)
    if not s then s, e = l:find('annotate%(%s*"tsocheck"') end
    local code = l:match('^%s*(.)')
    if s and code ~= '#' and code ~= '/' and code ~= '*' then
      -- The name: the first identifier followed by `(` after the marker on
      -- its line, else before it (trailing attribute), else on the next lines.
      local function first_call(text)
        -- TSOCHECK_WITH("opts") and string arguments name nothing.
        text = text:gsub('"[^"]*"', '""'):gsub('^_WITH%s*%b()', '')
        for id in text:gmatch('([%a_][%w_]*)%s*%(') do
          if id ~= '__attribute__' and id ~= 'annotate' and id ~= '__declspec' then return id end
        end
        return nil
      end
      local name = first_call(l:sub(e + 1)) or first_call(l:sub(1, s - 1))
      if not name then
        local k = i + 1
        while not name and k <= math.min(i + 3, #lines) do
          name = first_call(lines[k])
          k = k + 1
        end
      end
      if name then
        local depth, opened, last = 0, false, i
        for k = i, #lines do
          for ch in lines[k]:gmatch('[{};]') do
            if ch == '{' then
              depth, opened = depth + 1, true
            elseif ch == '}' then
              depth = depth - 1
            elseif ch == ';' and not opened then
              -- a declaration, no body
              depth = -1
            end
          end
          last = k
          if depth < 0 or (opened and depth <= 0) then break end
        end
        table.insert(out, { name = name, first = i, last = last })
      end
    end
  end
  return out
end

local function tsocheck_diagnostics(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp
    if d.source == 'tsocheck' or (lsp and lsp.source == 'tsocheck') then
      local data = lsp and lsp.data
      local fn = type(data) == 'table' and data['function'] or nil
      table.insert(out, { diag = d, fn = type(fn) == 'string' and fn or nil })
    end
  end
  return out
end

local function default_function(bufnr)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local fns = check_functions(bufnr)
  for _, f in ipairs(fns) do
    if f.first <= line and line <= f.last then return f.name end
  end
  local diags = tsocheck_diagnostics(bufnr)
  for _, x in ipairs(diags) do
    if x.fn and x.diag.lnum + 1 == line then return x.fn end
  end
  local first
  for _, x in ipairs(diags) do
    if x.fn and x.diag.severity == vim.diagnostic.severity.ERROR then
      if not first or x.diag.lnum < first.diag.lnum then first = x end
    end
  end
  if first then return first.fn end
  local names = {}
  for _, f in ipairs(fns) do names[f.name] = true end
  if #vim.tbl_keys(names) == 1 then return fns[1].name end
  return nil
end

-- ---------------------------------------------------------------------------
-- Files and quickfix

local function join(dir, file)
  if dir:sub(-1) == '/' then return dir .. file end
  return dir .. '/' .. file
end

-- Trace files are absolute, or relative to the compile directory.
local function resolve(file, bufnr, root)
  if is_nil(file) or file == '' then return vim.api.nvim_buf_get_name(bufnr) end
  if file:sub(1, 1) == '/' then return file end
  local bufname = vim.api.nvim_buf_get_name(bufnr)
  if bufname:sub(-(#file + 1)) == '/' .. file then return bufname end
  for _, dir in ipairs({ root, vim.fn.getcwd() }) do
    if dir and vim.fn.filereadable(join(dir, file)) == 1 then return join(dir, file) end
  end
  return join(root or vim.fn.getcwd(), file)
end

-- The server writes each step's label (service/report_json.h); a step
-- without one (an old cache entry) shows its number and event.
local function step_label(s, i)
  if type(s.label) == 'string' and s.label ~= '' then return s.label end
  return string.format('step %d · %s', i, value_text(s.event))
end

local function qf_is_ours()
  if not trace.qfid then return false end
  local ok, r = pcall(vim.fn.getqflist, { id = trace.qfid })
  return ok and type(r) == 'table' and r.id == trace.qfid and r.id ~= 0
end

local function close_float()
  if float.win and vim.api.nvim_win_is_valid(float.win) then
    pcall(vim.api.nvim_win_close, float.win, true)
  end
  float.win = nil
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then pcall(vim.api.nvim_buf_clear_namespace, b, ns, 0, -1) end
  end
end

local function status_text(check, fn)
  local s = '`' .. fn .. '`'
  if type(check.model) == 'string' then s = s .. ' under ' .. check.model end
  s = s .. ': ' .. value_text(check.status)
  if type(check.message) == 'string' and check.message ~= '' then s = s .. ' — ' .. check.message end
  return s
end

--- Forgets the loaded trace: the float, the step highlight and the quickfix
--- list's entries go (the list keeps a title saying why).
local function clear_trace(why)
  if not trace.steps then return end
  close_float()
  if qf_is_ours() then
    pcall(vim.fn.setqflist, {}, 'r', { id = trace.qfid, items = {}, title = 'tsocheck: trace cleared (' .. why .. ')' })
    if vim.fn.getqflist({ id = 0 }).id == trace.qfid then pcall(vim.cmd, 'cclose') end
  end
  trace.steps, trace.check, trace.fn, trace.index = nil, nil, nil, 0
  notify('trace cleared: ' .. why)
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckTraceCleared', modeline = false })
end

local function load_trace(check, fn, bufnr, root, refresh)
  local v = check.violation
  local steps = type(v) == 'table' and v.trace or nil
  if check.status ~= 'violation' or type(steps) ~= 'table' or #steps == 0 then
    local level = check.status == 'verified' and vim.log.levels.INFO or vim.log.levels.WARN
    notify(status_text(check, fn) .. ' (no violation, no trace)', level)
    return
  end
  close_float()
  local items = {}
  for i, s in ipairs(steps) do
    table.insert(items, {
      filename = resolve(s.file, bufnr, root),
      lnum = tonumber(s.line) or 1,
      col = tonumber(s.column) or 1,
      text = step_label(s, i),
    })
  end
  local title = 'tsocheck: ' .. status_text(check, fn)
  if refresh and qf_is_ours() then
    -- New results for the same check: the list is updated in place, windows stay.
    vim.fn.setqflist({}, 'r', { id = trace.qfid, title = title, items = items, idx = 1 })
    trace.steps, trace.check, trace.fn, trace.bufnr, trace.root, trace.index = steps, check, fn, bufnr, root, 0
    notify('`' .. fn .. '`: trace refreshed from the new results (' .. #steps .. ' steps)')
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckTraceLoaded', modeline = false })
    return
  end
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  trace.steps, trace.check, trace.fn, trace.bufnr, trace.root, trace.index = steps, check, fn, bufnr, root, 0
  trace.qfid = vim.fn.getqflist({ id = 0 }).id
  local win = vim.api.nvim_get_current_win()
  vim.cmd('botright copen')
  if vim.api.nvim_win_is_valid(win) then vim.api.nvim_set_current_win(win) end
  -- Short (one line, no hit-enter prompt): the check's message is the list's title.
  notify('`' .. fn .. '` under ' .. tostring(check.model) .. ': violation — ' .. #steps
    .. ' steps in the quickfix list (:TsocheckStep next)')
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckTraceLoaded', modeline = false })
end

-- New diagnostics for bufnr: a trace loaded from its results is fetched again;
-- the same trace stays as it is, another one replaces it (float and highlight
-- closed), none (fixed, or no result) clears it.
trace_results_replaced = function(client, bufnr)
  if not trace.steps or trace.bufnr ~= bufnr or not trace.fn then return end
  local fn, old = trace.fn, trace.steps
  local params = { uri = vim.uri_from_bufnr(bufnr), ['function'] = fn }
  request(client, 'tsocheck/trace', params, function(err, result)
    if trace.steps ~= old then return end  -- another trace was loaded (or cleared) meanwhile
    local steps = not err and type(result) == 'table' and result.status == 'violation'
      and type(result.violation) == 'table' and result.violation.trace or nil
    if type(steps) ~= 'table' or #steps == 0 then
      local why = err and 'no result for `' .. fn .. '` any more'
        or ('`' .. fn .. '` is ' .. value_text(type(result) == 'table' and result.status or '?') .. ' now')
      return clear_trace(why)
    end
    if vim.deep_equal(steps, old) then return end
    local ok, lerr = pcall(load_trace, result, fn, bufnr, trace.root, true)
    if not ok then notify('cannot load the new trace: ' .. tostring(lerr), vim.log.levels.ERROR) end
  end, bufnr)
end

--- Requests the trace of `fn` (default: see :TsocheckTrace) for bufnr.
function M.trace(fn, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = client_for(bufnr)
  if not client then
    notify('no tsocheck language server is attached to this buffer (a C file? setup() called?)',
      vim.log.levels.ERROR)
    return
  end
  if fn == nil or fn == '' then fn = default_function(bufnr) end
  if not fn then
    notify('no check function here: give one (:TsocheckTrace name) or mark one with TSOCHECK',
      vim.log.levels.WARN)
    return
  end
  local root = client.config and client.config.root_dir or nil
  local params = { uri = vim.uri_from_bufnr(bufnr), ['function'] = fn }
  local ok, sent = pcall(request, client, 'tsocheck/trace', params, function(err, result)
    if err then
      local msg = type(err) == 'table' and err.message or tostring(err)
      if tostring(msg):find('no result', 1, true) then
        msg = msg .. ' (not checked yet, still running, or not a check function)'
      end
      notify('trace of `' .. fn .. '` failed: ' .. tostring(msg), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' then
      notify('trace of `' .. fn .. '`: empty answer from the server', vim.log.levels.ERROR)
      return
    end
    local lok, lerr = pcall(load_trace, result, fn, bufnr, root)
    if not lok then notify('cannot load the trace: ' .. tostring(lerr), vim.log.levels.ERROR) end
  end, bufnr)
  if not ok or sent == false then
    notify('the request could not be sent: ' .. tostring(ok and 'server not running' or sent),
      vim.log.levels.ERROR)
  end
end

-- ---------------------------------------------------------------------------
-- Stepping

local function buffer_line(t, entries)
  local parts = {}
  if type(entries) == 'table' then
    for _, e in ipairs(entries) do
      table.insert(parts, value_text(e.address) .. ' = ' .. value_text(e.value))
    end
  end
  if #parts == 0 then return string.format('T%d: empty', t) end
  return string.format('T%d: [%s]', t, table.concat(parts, ', '))
end

--- The float's lines for step i of the loaded trace.
function M.step_lines(s, i, n)
  local lines = { step_label(s, i) .. string.format('   (%d/%d)', i, n) }
  local where = vim.fn.fnamemodify(resolve(s.file, trace.bufnr, trace.root), ':t')
    .. ':' .. value_text(s.line) .. ':' .. value_text(s.column)
  if type(s.note) == 'string' and s.note ~= '' then where = where .. '  ' .. s.note end
  table.insert(lines, where)
  table.insert(lines, 'store buffers (oldest first):')
  local bufs = type(s.buffers) == 'table' and s.buffers or {}
  if #bufs == 0 then table.insert(lines, '  (none)') end
  for t, entries in ipairs(bufs) do
    table.insert(lines, '  ' .. buffer_line(t - 1, entries))
  end
  local mem = {}
  if type(s.memory) == 'table' then
    local keys = vim.tbl_keys(s.memory)
    table.sort(keys)
    for _, k in ipairs(keys) do table.insert(mem, k .. ' = ' .. value_text(s.memory[k])) end
  end
  table.insert(lines, 'memory: ' .. (#mem == 0 and 'initial values' or table.concat(mem, ', ')))
  return lines
end

-- A normal window to jump in: the current one, else one showing the traced
-- buffer, else any normal window.
local function source_win()
  local function normal(w)
    local b = vim.api.nvim_win_get_buf(w)
    return vim.api.nvim_win_get_config(w).relative == '' and vim.bo[b].buftype == ''
  end
  local cur = vim.api.nvim_get_current_win()
  if normal(cur) then return cur end
  local any
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if normal(w) then
      if vim.api.nvim_win_get_buf(w) == trace.bufnr then return w end
      any = any or w
    end
  end
  return any
end

local function show_step(i)
  local s = trace.steps[i]
  trace.index = i
  local win = source_win()
  if not win then
    notify('no window to show the step in', vim.log.levels.ERROR)
    return
  end
  vim.api.nvim_set_current_win(win)
  local file = resolve(s.file, trace.bufnr, trace.root)
  local target = vim.fn.bufnr(file)
  if target == -1 then
    if vim.fn.filereadable(file) ~= 1 then
      notify('step ' .. i .. ': cannot open ' .. file, vim.log.levels.ERROR)
      return
    end
    target = vim.fn.bufadd(file)
  end
  vim.cmd("normal! m'")
  if vim.api.nvim_win_get_buf(win) ~= target then
    vim.bo[target].buflisted = true
    vim.api.nvim_win_set_buf(win, target)
  end
  local nlines = vim.api.nvim_buf_line_count(target)
  local lnum = math.max(1, math.min(tonumber(s.line) or 1, nlines))
  local text = vim.api.nvim_buf_get_lines(target, lnum - 1, lnum, false)[1] or ''
  local col = math.max(0, math.min((tonumber(s.column) or 1) - 1, math.max(#text - 1, 0)))
  vim.api.nvim_win_set_cursor(win, { lnum, col })
  if qf_is_ours() then pcall(vim.fn.setqflist, {}, 'a', { id = trace.qfid, idx = i }) end

  close_float()
  pcall(vim.api.nvim_buf_add_highlight, target, ns, 'Visual', lnum - 1, 0, -1)
  local lines = M.step_lines(s, i, #trace.steps)
  if not (float.buf and vim.api.nvim_buf_is_valid(float.buf)) then
    float.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[float.buf].bufhidden = 'hide'
  end
  vim.api.nvim_buf_set_lines(float.buf, 0, -1, false, lines)
  local width = 10
  for _, l in ipairs(lines) do width = math.max(width, vim.fn.strdisplaywidth(l)) end
  width = math.min(width, math.max(20, vim.o.columns - 4))
  -- Below the step's line, or above it when the window has no room below.
  local below = vim.api.nvim_win_get_height(win) - vim.fn.winline()
  local above = vim.fn.winline() - 1
  local anchor, row = 'NW', 1
  if below < #lines + 2 and above >= #lines + 2 then anchor, row = 'SW', 0 end
  float.win = vim.api.nvim_open_win(float.buf, false, {
    relative = 'cursor', anchor = anchor, row = row, col = 0, width = width, height = #lines,
    style = 'minimal', border = 'rounded', focusable = false, noautocmd = true,
  })
  local shown_win, shown_line = win, lnum
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'BufLeave', 'WinLeave' }, {
    group = vim.api.nvim_create_augroup('tsocheck_float', { clear = true }),
    callback = function(ev)
      if ev.event == 'CursorMoved' and vim.api.nvim_get_current_win() == shown_win
          and vim.api.nvim_win_get_cursor(shown_win)[1] == shown_line then
        return
      end
      close_float()
      return true
    end,
  })
end

--- Moves through the loaded trace: 'next', 'prev', 'first', 'last',
--- 'current' (the quickfix list's index) or 'close'.
function M.step(where)
  where = (where == nil or where == '') and 'next' or where
  if where == 'close' then return close_float() end
  if not trace.steps then
    notify('no trace loaded: run :TsocheckTrace first', vim.log.levels.WARN)
    return
  end
  local n, i = #trace.steps, trace.index
  if where == 'next' then
    if i >= n then notify('already at the last step (' .. n .. ')') end
    i = math.min(i + 1, n)
  elseif where == 'prev' then
    if i <= 1 then notify('already at the first step') end
    i = math.max(i - 1, 1)
  elseif where == 'first' then
    i = 1
  elseif where == 'last' then
    i = n
  elseif where == 'current' then
    if not qf_is_ours() then
      notify('the quickfix list is not the tsocheck trace any more', vim.log.levels.WARN)
      return
    end
    i = vim.fn.getqflist({ id = trace.qfid, idx = 0 }).idx
    i = math.max(1, math.min(tonumber(i) or 1, n))
  else
    notify('unknown step `' .. where .. '`: next, prev, first, last, current or close', vim.log.levels.ERROR)
    return
  end
  local ok, err = pcall(show_step, i)
  if not ok then notify('cannot show step ' .. i .. ': ' .. tostring(err), vim.log.levels.ERROR) end
end

--- The loaded trace (read-only view, for scripts and tests).
function M.current()
  return { steps = trace.steps, index = trace.index, check = trace.check, float = float.win }
end

-- ---------------------------------------------------------------------------
-- Setup

function M.setup(opts)
  config = vim.tbl_extend('force', config, opts or {})
  local group = vim.api.nvim_create_augroup('tsocheck', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args) attach(args.buf) end,
  })
  -- Buffers already open when setup() runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(config.filetypes, vim.bo[b].filetype) then
      attach(b)
    end
  end
  -- The traced buffer goes: so does its trace.
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
    group = group,
    callback = function(args)
      if trace.steps and args.buf == trace.bufnr then clear_trace(vim.fn.fnamemodify(args.file or '', ':t') .. ' was closed') end
    end,
  })
  vim.api.nvim_create_user_command('TsocheckTrace', function(c)
    M.trace(c.args ~= '' and c.args or nil, vim.api.nvim_get_current_buf())
  end, {
    nargs = '?',
    desc = 'tsocheck: load a check\'s violating interleaving into the quickfix list',
    complete = function()
      local names, seen = {}, {}
      for _, f in ipairs(check_functions(vim.api.nvim_get_current_buf())) do
        if not seen[f.name] then table.insert(names, f.name) end
        seen[f.name] = true
      end
      return names
    end,
  })
  vim.api.nvim_create_user_command('TsocheckWorkspace', function() require('tsocheck.workspace').run(config.name) end,
    { desc = 'tsocheck: check every harness of the workspace (again: cancel)' })
  vim.api.nvim_create_user_command('TsocheckPicture', function(c) require('tsocheck.picture').command(c.args, 0,
    { client_for = client_for, default_function = default_function, request = request, notify = notify }) end, { nargs = '?', desc = 'tsocheck: a check\'s interleaving as thread lanes' })
  vim.api.nvim_create_user_command('TsocheckStep', function(c) M.step(c.args) end, {
    nargs = '?',
    desc = 'tsocheck: walk the loaded trace',
    complete = function() return { 'next', 'prev', 'first', 'last', 'current', 'close' } end,
  })
end

return M
