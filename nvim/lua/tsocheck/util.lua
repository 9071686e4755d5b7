-- Shared by the tsocheck modules: the settings given to setup(), messages,
-- and small helpers around the LSP client API of Neovim 0.7 to 0.11.
local M = {}

-- The settings (setup() updates this table in place).
M.config = {
  name = 'tsocheck',
  cmd = nil, -- nil: require('tsocheck.client').server_path()
  init_options = {},
  progress = true, -- echo tsocheck/status and $/progress in the message area
  mappings = true, -- ]s / [s in the C buffers of a loaded trace
  filetypes = { 'c' },
  root_dir = nil,
  on_attach = nil,
  capabilities = nil,
}

--- msg cut to one line of the message area (… at the cut).
function M.fit(msg)
  local room = tonumber(vim.v.echospace) or 0
  if room <= 0 then room = vim.o.columns - 12 end
  room = math.max(room, 10)
  if vim.fn.strdisplaywidth(msg) <= room then return msg end
  local n = vim.fn.strchars(msg)
  while n > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(msg, 0, n)) > room - 1 do n = n - 1 end
  return vim.fn.strcharpart(msg, 0, n) .. '…'
end

-- Neovim's own vim.notify echoes (a message wider than the screen stops at a
-- hit-enter prompt); a replacement (a notification plugin, a test) is not.
local function builtin_notify()
  local ok, info = pcall(debug.getinfo, vim.notify, 'S')
  return ok and type(info) == 'table' and type(info.source) == 'string'
    and info.source:find('vim/_editor.lua', 1, true) ~= nil
end

--- Messages: errors and warnings through vim.notify; information too, but
--- with Neovim's own vim.notify as one line (kept in :messages), so a lens
--- pick or a loaded trace never ends at "Press ENTER".
function M.notify(msg, level)
  msg = 'tsocheck: ' .. msg
  level = level or vim.log.levels.INFO
  if level <= vim.log.levels.INFO and builtin_notify() then
    pcall(vim.api.nvim_echo, { { M.fit(msg) } }, true, {})
    return
  end
  vim.notify(msg, level)
end

function M.is_nil(v)
  return v == nil or v == vim.NIL
end

function M.value_text(v)
  if M.is_nil(v) then return '?' end
  return tostring(v)
end

function M.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- A request's error in the server's words; "no result" (a function not
--- checked yet) says why that may be.
function M.error_text(err)
  local msg = tostring(type(err) == 'table' and err.message or err)
  if msg:find('no result', 1, true) then msg = msg .. ' (not checked yet, still running, or not a check function)' end
  return msg
end

--- After pcall(M.request, ...): an error message when it was not sent.
function M.check_sent(ok, sent)
  if not ok or sent == false then
    M.notify('the request could not be sent: ' .. tostring(ok and 'server not running' or sent), vim.log.levels.ERROR)
  end
end

function M.buf_of_uri(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then return nil end
  local b = vim.fn.bufnr(fname)
  if b == -1 or not vim.api.nvim_buf_is_loaded(b) then return nil end
  return b
end

function M.thousands(n)
  local s = tostring(math.floor(tonumber(n) or 0))
  local out = s:reverse():gsub('(%d%d%d)', '%1,'):reverse()
  return (out:gsub('^,', ''))
end

local function join(dir, file)
  if dir:sub(-1) == '/' then return dir .. file end
  return dir .. '/' .. file
end

--- The path of a file the server names (a trace step's, a picture row's):
--- absolute, or relative to the compile directory (the buffer's own name,
--- root, the cwd). Empty: bufnr's file.
function M.resolve(file, bufnr, root)
  if M.is_nil(file) or file == '' then return vim.api.nvim_buf_get_name(bufnr) end
  if file:sub(1, 1) == '/' then return file end
  local bufname = vim.api.nvim_buf_get_name(bufnr)
  if bufname:sub(-(#file + 1)) == '/' .. file then return bufname end
  for _, dir in ipairs({ root, vim.fn.getcwd() }) do
    if dir and vim.fn.filereadable(join(dir, file)) == 1 then return join(dir, file) end
  end
  return join(root or vim.fn.getcwd(), file)
end

local function normal_win(w)
  if not (w and vim.api.nvim_win_is_valid(w)) then return false end
  local b = vim.api.nvim_win_get_buf(w)
  return vim.api.nvim_win_get_config(w).relative == '' and vim.bo[b].buftype == ''
end

--- A normal window (no float, no scratch or quickfix buffer) to show source
--- in: the first of `wins` that is one, else one showing bufnr, else any.
function M.source_win(wins, bufnr)
  for _, w in ipairs(wins) do
    if normal_win(w) then return w end
  end
  local any
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if normal_win(w) then
      if vim.api.nvim_win_get_buf(w) == bufnr then return w end
      any = any or w
    end
  end
  return any
end

--- Shows `file` (a resolved path) in window win with the cursor at line,
--- column (1-based; clamped to the file), leaving a jump mark. Returns the
--- buffer and the line, or nil and why not.
function M.show_source(win, file, line, column)
  vim.api.nvim_set_current_win(win)
  local target = vim.fn.bufnr(file)
  if target == -1 then
    if vim.fn.filereadable(file) ~= 1 then return nil, 'cannot open ' .. file end
    target = vim.fn.bufadd(file)
  end
  vim.cmd("normal! m'")
  if vim.api.nvim_win_get_buf(win) ~= target then
    vim.bo[target].buflisted = true
    vim.api.nvim_win_set_buf(win, target)
  end
  local nlines = vim.api.nvim_buf_line_count(target)
  local lnum = math.max(1, math.min(tonumber(line) or 1, nlines))
  local text = vim.api.nvim_buf_get_lines(target, lnum - 1, lnum, false)[1] or ''
  local col = math.max(0, math.min((tonumber(column) or 1) - 1, math.max(#text - 1, 0)))
  vim.api.nvim_win_set_cursor(win, { lnum, col })
  return target, lnum
end

function M.fire(pattern)
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = pattern, modeline = false })
end

return M
