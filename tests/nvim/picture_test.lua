-- Headless Neovim test of :TsocheckPicture over `tsocheck lsp`: open a copy of
-- samples/litmus/sb.c, wait for the TSO diagnostic, :TsocheckPicture, and
-- check the scratch split shows the server's summary and lanes (a column per
-- thread, the stale read, the failing step); <CR> and a double-click on the
-- stale read's line go to its source; a line without a step and a function
-- without a result give a message, not an error. Writes ok/PASS/FAIL lines
-- to $TSOCHECK_E2E_OUT.
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, has, notes = h.note, h.check, h.has, h.notes

vim.opt.runtimepath:prepend(os.getenv('TSOCHECK_NVIM_DIR'))
require('tsocheck').setup({ cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' } })
h.capture()

local function test()
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.wait(30000, function()
    return #vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR }) > 0
  end, 50), 'no TSO diagnostic')
  local shown = false
  vim.api.nvim_create_autocmd('User', { pattern = 'TsocheckPictureShown', callback = function() shown = true end })
  local ok, err = pcall(vim.cmd, 'TsocheckPicture store_buffering')
  check(ok, ':TsocheckPicture raised: ' .. tostring(err))
  check(vim.wait(10000, function() return shown end, 20), 'no picture: ' .. h.last_note().msg)
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

  -- <CR> on the stale read's line: the cursor goes to that step's source in
  -- the window the picture was opened from. Where that is comes from the
  -- server's trace, the line from the picture's own text.
  local client = require('tsocheck.client').client_for(bufnr)
  local res = client.request_sync('tsocheck/trace',
    { uri = vim.uri_from_bufnr(bufnr), ['function'] = 'store_buffering' }, 5000, bufnr)
  check(res and res.result and res.result.violation, 'no trace: ' .. vim.inspect(res))
  local stale
  for _, st in ipairs(res.result.violation.trace) do
    if type(st.stale) == 'table' then stale = st end
  end
  check(stale, 'the trace has no stale read')
  -- The picture starts with the violation's summary as the server words it.
  local summary = res.result.violation.summary
  check(type(summary) == 'table' and #summary >= 2, 'the trace has no summary: ' .. vim.inspect(summary))
  local head = vim.api.nvim_buf_get_lines(pic, 0, #summary + 1, false)
  check(head[1] == 'store_buffering under TSO', 'the picture\'s headline: ' .. tostring(head[1]))
  for i, l in ipairs(summary) do
    check(head[i + 1] == '  ' .. l, 'picture line ' .. (i + 1) .. ' is not the summary\'s "' .. l .. '": ' .. tostring(head[i + 1]))
  end
  note('the picture starts with the summary: ' .. table.concat(head, ' / '))
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(pic, 0, -1, false)) do
    if has(l, 'STALE') then row = i end
  end
  check(row and vim.api.nvim_buf_get_lines(pic, row - 1, row, false)[1]:match('^ *(%d+) ') == tostring(stale.step),
    'the STALE line is not step ' .. stale.step .. ' of the trace')
  local src_win = vim.fn.bufwinid(bufnr)
  local function press(lnum, keys)
    vim.api.nvim_set_current_win(vim.fn.bufwinid(pic))
    vim.api.nvim_win_set_cursor(0, { lnum, 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
  end
  vim.api.nvim_win_set_cursor(src_win, { 1, 0 })
  press(row, '<CR>')
  check(vim.api.nvim_get_current_win() == src_win, '<CR> did not go to the window the picture was opened from')
  local cur = vim.api.nvim_win_get_cursor(0)
  check(vim.api.nvim_get_current_buf() == bufnr and cur[1] == stale.line and cur[2] == stale.column - 1,
    '<CR> on the stale read went to ' .. vim.api.nvim_buf_get_name(0) .. ':' .. cur[1] .. ':' .. (cur[2] + 1)
      .. ', not ' .. stale.line .. ':' .. stale.column)
  note('<CR> on picture line ' .. row .. ' (step ' .. stale.step .. ', the stale read) went to sb.c:'
    .. cur[1] .. ':' .. (cur[2] + 1))
  -- A line without a step: a message, the cursor stays.
  local before_msgs = #notes
  press(1, '<CR>')
  check(vim.api.nvim_get_current_win() == vim.fn.bufwinid(pic), '<CR> on the headline left the picture')
  check(#notes > before_msgs and has(notes[#notes].msg, 'no step on this line'),
    '<CR> on the headline: ' .. tostring((notes[#notes] or {}).msg))
  note('<CR> on the headline: ' .. notes[#notes].msg)
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

  -- A double-click on the stale read's line, the cursor elsewhere: the same
  -- jump. Mouse input is read by the main loop: the clicks are queued here,
  -- and the returned function checks where they went.
  local pic_win = vim.fn.bufwinid(pic)
  vim.api.nvim_win_set_cursor(src_win, { 1, 0 })
  vim.api.nvim_set_current_win(pic_win)
  vim.api.nvim_win_set_cursor(pic_win, { 1, 0 })
  vim.cmd('normal! zt')
  local top = vim.fn.win_screenpos(pic_win)
  local srow = top[1] - 1 + row - 1
  vim.o.mouse = 'a'
  for _ = 1, 2 do
    vim.api.nvim_input_mouse('left', 'press', '', 0, srow, top[2] + 2)
    vim.api.nvim_input_mouse('left', 'release', '', 0, srow, top[2] + 2)
  end
  return function(last)
    local arrived = vim.api.nvim_get_current_win() == src_win
    if not arrived and not last then return false end
    local at = vim.api.nvim_win_get_cursor(src_win)
    check(arrived and at[1] == stale.line and at[2] == stale.column - 1,
      'a double-click on the stale read left the cursor in window ' .. vim.api.nvim_get_current_win()
        .. ' (sb.c at ' .. at[1] .. ':' .. (at[2] + 1) .. ')')
    note('a double-click on picture line ' .. row .. ' went to sb.c:' .. at[1] .. ':' .. (at[2] + 1))
    return true
  end
end

h.run('tsocheck.nvim interleaving picture', test)
