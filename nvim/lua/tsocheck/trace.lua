-- Trace and quickfix: which check function, the trace of a check in the
-- quickfix list (one entry per step), walking it with a float per step, and
-- following the buffer's new results.
local util = require('tsocheck.util')
local notify, request, value_text, resolve = util.notify, util.request, util.value_text, util.resolve

local M = {}

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

-- ]s / [s: buffer-local, only in the C buffers that show the loaded trace
-- (never the quickfix window), gone when the trace is cleared. A buffer
-- that has its own buffer-local ]s or [s keeps it.
local step_keys = { [']s'] = 'next', ['[s'] = 'prev' }
local mapped = {} -- bufnr -> true where the module set them

local function map_steps(bufnr)
  if not util.config.mappings or mapped[bufnr] or not vim.api.nvim_buf_is_valid(bufnr) then return end
  if vim.bo[bufnr].buftype ~= '' or not vim.tbl_contains(util.config.filetypes, vim.bo[bufnr].filetype) then return end
  for lhs, where in pairs(step_keys) do
    local own = vim.api.nvim_buf_call(bufnr, function() return vim.fn.maparg(lhs, 'n', false, true) end)
    if not (type(own) == 'table' and own.buffer == 1) then
      vim.keymap.set('n', lhs, function() M.step(where) end,
        { buffer = bufnr, silent = true, desc = 'tsocheck: ' .. where .. ' step of the trace' })
      mapped[bufnr] = mapped[bufnr] or {}
      mapped[bufnr][lhs] = true
    end
  end
  mapped[bufnr] = mapped[bufnr] or {}
end

local function unmap_steps()
  for b, keys in pairs(mapped) do
    if vim.api.nvim_buf_is_valid(b) then
      for lhs in pairs(keys) do pcall(vim.keymap.del, 'n', lhs, { buffer = b }) end
    end
  end
  mapped = {}
end

-- ---------------------------------------------------------------------------
-- Which check function

-- The check functions of bufnr as the server knows them: the answer of
-- `tsocheck/checks` ({checks: [{name, range, model}]}) as { {name=, first=,
-- last=, model=} } with 1-based lines.
local function checks_of(result)
  local out = {}
  for _, c in ipairs(type(result) == 'table' and type(result.checks) == 'table' and result.checks or {}) do
    local r = type(c) == 'table' and c.range
    if type(c.name) == 'string' and type(r) == 'table' and type(r.start) == 'table' then
      local first = (tonumber(r.start.line) or 0) + 1
      local last = type(r['end']) == 'table' and (tonumber(r['end'].line) or 0) + 1 or first
      table.insert(out, { name = c.name, first = first, last = math.max(first, last),
                          model = type(c.model) == 'string' and c.model or nil })
    end
  end
  return out
end

--- Calls on_checks(list) with the check functions of bufnr (see checks_of).
--- When the server answers with an error, or the request cannot be sent,
--- says so (the server's words) and calls nothing.
function M.checks(bufnr, on_checks)
  local client = require('tsocheck.client').client_for(bufnr)
  if not client then return on_checks({}) end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  local ok, sent = pcall(request, client, 'tsocheck/checks', params, function(err, result)
    if err then
      notify('the check functions of ' .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t')
        .. ' are unknown: ' .. util.error_text(err), vim.log.levels.ERROR)
      return
    end
    on_checks(checks_of(result))
  end, bufnr)
  util.check_sent(ok, sent)
end

--- The same, waiting at most timeout_ms for the server (for completion).
function M.checks_sync(bufnr, timeout_ms)
  local client = require('tsocheck.client').client_for(bufnr)
  if not client then return {} end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  local ok, res
  if vim.fn.has('nvim-0.11') == 1 then
    ok, res = pcall(client.request_sync, client, 'tsocheck/checks', params, timeout_ms or 1000, bufnr)
  else
    ok, res = pcall(client.request_sync, 'tsocheck/checks', params, timeout_ms or 1000, bufnr)
  end
  if ok and type(res) == 'table' and not res.err and res.result then return checks_of(res.result) end
  return {}
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

-- The check to trace when none is named: the tsocheck diagnostic on the
-- cursor line, else the check whose range holds the cursor line, else the
-- nearest check starting at or above it, else the buffer's first violation,
-- else the buffer's only check.
local function default_function(bufnr, fns, line)
  local diags = tsocheck_diagnostics(bufnr)
  for _, x in ipairs(diags) do
    if x.fn and x.diag.lnum + 1 == line then return x.fn end
  end
  local above
  for _, f in ipairs(fns) do
    if f.first <= line and line <= f.last then return f.name end
    if f.first <= line and (not above or f.first > above.first) then above = f end
  end
  if above then return above.name end
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

-- The server words each step (its `label`); a step without one (a server
-- older than the field) shows only its number.
local function step_label(s, i)
  if type(s.label) == 'string' and s.label ~= '' then return s.label end
  return 'step ' .. i
end

-- The server words the store buffers after each step (`buffers_text`, ""
-- when all are empty).
local function buffers_label(s)
  return 'store buffers: ' .. (s.buffers_text == '' and 'all empty' or value_text(s.buffers_text))
end

-- The violation's summary as the server words it (nil when it has none).
local function summary_of(check)
  local v = type(check) == 'table' and check.violation
  local sm = type(v) == 'table' and v.summary
  if type(sm) ~= 'table' or #sm == 0 then return nil end
  return vim.tbl_filter(function(l) return type(l) == 'string' end, sm)
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
function M.clear_trace(why)
  if not trace.steps then return end
  close_float()
  if qf_is_ours() then
    pcall(vim.fn.setqflist, {}, 'r', { id = trace.qfid, items = {}, title = 'tsocheck: trace cleared (' .. why .. ')' })
    if vim.fn.getqflist({ id = 0 }).id == trace.qfid then pcall(vim.cmd, 'cclose') end
  end
  trace.steps, trace.check, trace.fn, trace.index = nil, nil, nil, 0
  unmap_steps()
  notify('trace cleared: ' .. why)
  util.fire('TsocheckTraceCleared')
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
  local summary = summary_of(check)
  local title = 'tsocheck: ' .. (summary and ('`' .. fn .. '`: ' .. table.concat(summary, ' — ')) or status_text(check, fn))
  if refresh and qf_is_ours() then
    -- New results for the same check: the list is updated in place, windows stay.
    vim.fn.setqflist({}, 'r', { id = trace.qfid, title = title, items = items, idx = 1 })
    trace.steps, trace.check, trace.fn, trace.bufnr, trace.root, trace.index = steps, check, fn, bufnr, root, 0
    map_steps(bufnr)
    notify('`' .. fn .. '`: trace refreshed from the new results (' .. #steps .. ' steps)')
    util.fire('TsocheckTraceLoaded')
    return
  end
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  trace.steps, trace.check, trace.fn, trace.bufnr, trace.root, trace.index = steps, check, fn, bufnr, root, 0
  trace.qfid = vim.fn.getqflist({ id = 0 }).id
  unmap_steps()
  map_steps(bufnr)
  local win = vim.api.nvim_get_current_win()
  vim.cmd('botright copen')
  if vim.api.nvim_win_is_valid(win) then vim.api.nvim_set_current_win(win) end
  -- Short (one line, no hit-enter prompt): the check's message is the list's title.
  notify('`' .. fn .. '` (' .. tostring(check.model) .. '): ' .. #steps .. ' steps in the quickfix list'
    .. (summary and (' — ' .. summary[1]) or ''))
  util.fire('TsocheckTraceLoaded')
end

-- New diagnostics for bufnr: a trace loaded from its results is fetched again;
-- the same trace stays as it is, another one replaces it (float and highlight
-- closed), none (fixed, or no result) clears it.
function M.results_replaced(client, bufnr)
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
      return M.clear_trace(why)
    end
    if vim.deep_equal(steps, old) then return end
    local ok, lerr = pcall(load_trace, result, fn, bufnr, trace.root, true)
    if not ok then notify('cannot load the new trace: ' .. tostring(lerr), vim.log.levels.ERROR) end
  end, bufnr)
end

--- Calls on_name(name or nil) with the check a command without a function
--- name means (see default_function), at the cursor as it is now.
function M.pick_function(bufnr, on_name)
  local line = vim.api.nvim_get_current_buf() == bufnr and vim.api.nvim_win_get_cursor(0)[1] or 0
  M.checks(bufnr, function(fns) on_name(default_function(bufnr, fns, line)) end)
end

--- Requests the trace of `fn` (default: see :TsocheckTrace) for bufnr.
function M.trace(fn, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = require('tsocheck.client').client_for(bufnr)
  if not client then
    notify('no tsocheck language server is attached to this buffer (a C file? setup() called?)',
      vim.log.levels.ERROR)
    return
  end
  if fn == nil or fn == '' then
    return M.pick_function(bufnr, function(named)
      if not named then
        notify('no check function here: give one (:TsocheckTrace name) or mark one with TSOCHECK',
          vim.log.levels.WARN)
        return
      end
      M.trace(named, bufnr)
    end)
  end
  local root = client.config and client.config.root_dir or nil
  local params = { uri = vim.uri_from_bufnr(bufnr), ['function'] = fn }
  local ok, sent = pcall(request, client, 'tsocheck/trace', params, function(err, result)
    if err then
      notify('trace of `' .. fn .. '` failed: ' .. util.error_text(err), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' then
      notify('trace of `' .. fn .. '`: empty answer from the server', vim.log.levels.ERROR)
      return
    end
    local lok, lerr = pcall(load_trace, result, fn, bufnr, root)
    if not lok then notify('cannot load the trace: ' .. tostring(lerr), vim.log.levels.ERROR) end
  end, bufnr)
  util.check_sent(ok, sent)
end

-- ---------------------------------------------------------------------------
-- Stepping

--- The float's lines for step i of the loaded trace.
function M.step_lines(s, i, n)
  local lines = { step_label(s, i) .. string.format('   (%d/%d)', i, n) }
  local where = vim.fn.fnamemodify(resolve(s.file, trace.bufnr, trace.root), ':t')
    .. ':' .. value_text(s.line) .. ':' .. value_text(s.column)
  if type(s.note) == 'string' and s.note ~= '' then where = where .. '  ' .. s.note end
  table.insert(lines, where)
  -- RC11: no buffers or memory; what the read read and why, and what the
  -- step synchronises with, as the server words them.
  if type(s.rc11) == 'table' then
    for _, key in ipairs({ 'reads', 'hb' }) do
      if type(s[key]) == 'string' and s[key] ~= '' then table.insert(lines, s[key]) end
    end
    return lines
  end
  table.insert(lines, buffers_label(s))
  local mem = {}
  if type(s.memory) == 'table' then
    local keys = vim.tbl_keys(s.memory)
    table.sort(keys)
    for _, k in ipairs(keys) do table.insert(mem, k .. ' = ' .. value_text(s.memory[k])) end
  end
  table.insert(lines, 'memory: ' .. (#mem == 0 and 'initial values' or table.concat(mem, ', ')))
  return lines
end

local function show_step(i)
  local s = trace.steps[i]
  trace.index = i
  -- A normal window to jump in: the current one, else one showing the
  -- traced buffer, else any normal window.
  local win = util.source_win({ vim.api.nvim_get_current_win() }, trace.bufnr)
  if not win then
    notify('no window to show the step in', vim.log.levels.ERROR)
    return
  end
  local target, lnum = util.show_source(win, resolve(s.file, trace.bufnr, trace.root), s.line, s.column)
  if not target then
    notify('step ' .. i .. ': ' .. lnum, vim.log.levels.ERROR)
    return
  end
  map_steps(target)
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
  return { steps = trace.steps, index = trace.index, check = trace.check, float = float.win,
           summary = trace.steps and summary_of(trace.check) or nil }
end

--- The buffer the loaded trace belongs to (nil: no trace loaded).
function M.traced_buffer()
  return trace.steps and trace.bufnr or nil
end

--- The check function names of bufnr (for completion).
function M.function_names(bufnr)
  local names, seen = {}, {}
  for _, f in ipairs(M.checks_sync(bufnr)) do
    if not seen[f.name] then table.insert(names, f.name) end
    seen[f.name] = true
  end
  return names
end

return M
