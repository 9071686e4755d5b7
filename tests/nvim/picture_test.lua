-- Headless Neovim test of :TsocheckPicture over `tsocheck lsp`: open a copy of
-- samples/litmus/sb.c, wait for the TSO diagnostic, :TsocheckPicture, and
-- check the scratch split shows the server's lanes (a column per thread, the
-- stale read, the failing step); then a function without a result gives a
-- message, not an error. Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
local out = os.getenv('TSOCHECK_E2E_OUT')
local lines = {}
local function flush()
  local f = io.open(out, 'w'); f:write(table.concat(lines, '\n') .. '\n'); f:close()
end
local function note(msg) table.insert(lines, 'ok ' .. msg) end
local Fail = {}
local function fail(msg) error(setmetatable({ msg = msg }, Fail)) end
local function check(cond, msg) if not cond then fail(msg) end end
local function has(text, needle) return text:find(needle, 1, true) ~= nil end

vim.opt.runtimepath:prepend(os.getenv('TSOCHECK_NVIM_DIR'))
require('tsocheck').setup({ cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' } })
local notes = {}
vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level or vim.log.levels.INFO }) end

local function test()
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.wait(30000, function()
    return #vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR }) > 0
  end, 50), 'no TSO diagnostic')
  local shown = false
  vim.api.nvim_create_autocmd('User', { pattern = 'TsocheckPictureShown', callback = function() shown = true end })
  local ok, err = pcall(vim.cmd, 'TsocheckPicture store_buffering')
  check(ok, ':TsocheckPicture raised: ' .. tostring(err))
  check(vim.wait(10000, function() return shown end, 20), 'no picture: ' .. (notes[#notes] or { msg = '' }).msg)
  local pic = vim.fn.bufnr('tsocheck://picture/store_buffering')
  check(pic ~= -1 and vim.fn.bufwinid(pic) ~= -1, 'the picture is not in a window')
  check(vim.bo[pic].buftype == 'nofile' and not vim.bo[pic].modifiable, 'the picture is not a scratch buffer')
  local text = table.concat(vim.api.nvim_buf_get_lines(pic, 0, -1, false), '\n')
  local header
  for _, l in ipairs(vim.api.nvim_buf_get_lines(pic, 0, -1, false)) do
    if l:find('^step ') then header = l end
  end
  check(header and has(header, 'T0 · store_buffering') and has(header, 'T1 ·') and has(header, 'T2 ·'),
    'no lane per thread: ' .. tostring(header))
  check(has(text, 'STALE: missed step'), 'no stale read in:\n' .. text)
  check(has(text, '✗ fails here'), 'no failing step in:\n' .. text)
  check(has(text, '┆ x=1'), 'no pending store in:\n' .. text)
  note('picture split with ' .. vim.api.nvim_buf_line_count(pic) .. ' lines:\n' .. text)

  -- Again: the same split, refreshed, not a second one.
  local wins = #vim.api.nvim_list_wins()
  shown = false
  vim.api.nvim_set_current_win(vim.fn.bufwinid(bufnr))
  vim.cmd('TsocheckPicture store_buffering')
  check(vim.wait(10000, function() return shown end, 20), 'no second picture')
  check(#vim.api.nvim_list_wins() == wins, 'a second :TsocheckPicture opened another window')

  local before = #notes
  vim.cmd('TsocheckPicture no_such_function')
  check(vim.wait(5000, function() return #notes > before end, 20), 'no message for an unknown function')
  check(has(notes[#notes].msg, 'no result'), 'unknown function: ' .. notes[#notes].msg)
  note('an unknown function: ' .. notes[#notes].msg)
end

vim.api.nvim_create_autocmd('VimEnter', { nested = true, callback = function()
  local ok, err = xpcall(test, function(e)
    if getmetatable(e) == Fail then return e.msg end
    return 'Lua error: ' .. debug.traceback(tostring(e))
  end)
  table.insert(lines, ok and 'PASS tsocheck.nvim interleaving picture' or ('FAIL ' .. tostring(err)))
  flush()
  vim.cmd('qa!')
end })
