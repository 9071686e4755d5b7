-- Headless Neovim 0.7 end-to-end test of nvim/lua/tsocheck (trace walking
-- over `tsocheck lsp`): open a copy of samples/litmus/sb.c, wait for the TSO
-- diagnostic, :TsocheckTrace, check the quickfix list against the trace that
-- `tsocheck check --json` reports, walk it with :TsocheckStep and check the
-- cursor and the float (store buffers, memory), then the error paths and a
-- verified check, and which check the cursor is in when a string holds a
-- brace. Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT and quits.
--
-- Environment: TSOCHECK_BIN, TSOCHECK_NVIM_DIR (nvim), TSOCHECK_REF (the
-- CLI JSON of the same file), TSOCHECK_FENCED (a copy of sb_fenced.c),
-- TSOCHECK_BRACES (a file whose first check has "}}" in a string).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, has, notes, last_note = h.note, h.check, h.has, h.notes, h.last_note

vim.opt.runtimepath:prepend(os.getenv('TSOCHECK_NVIM_DIR'))
local tsocheck = require('tsocheck')
tsocheck.setup({ cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' } })

-- Capture notifications (they must be messages, never Lua errors).
h.capture()

-- A command run like a user would: no Lua error may escape it.
local function run(cmd)
  local ok, err = pcall(vim.cmd, cmd)
  check(ok, ':' .. cmd .. ' raised: ' .. tostring(err))
end

local function floats()
  local out_ = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then table.insert(out_, w) end
  end
  return out_
end

local function float_text()
  local f = floats()
  check(#f == 1, 'expected one float, found ' .. #f)
  return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(f[1]), 0, -1, false), '\n')
end

-- What the float must say about a step's buffers: the report's buffers_text
-- as given ("" is "all empty").
local function expected_buffers(s)
  check(type(s.buffers_text) == 'string', 'a step of the report has no buffers_text: ' .. vim.inspect(s))
  return 'store buffers: ' .. (s.buffers_text == '' and 'all empty' or s.buffers_text)
end

local function test()
  local bufnr = vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(bufnr)
  local f = io.open(os.getenv('TSOCHECK_REF')); local ref = vim.json.decode(f:read('*a')); f:close()
  local ref_check = ref.results[1]
  check(ref_check and ref_check.status == 'violation', 'the CLI reports no violation for sb.c')
  local ref_steps = ref_check.violation.trace

  -- Before anything is loaded: a message, not an error.
  run('TsocheckStep next')
  check(has(last_note().msg, 'no trace loaded'), 'step without trace: ' .. last_note().msg)

  local function errors()
    return vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
  end
  check(vim.wait(30000, function() return #errors() > 0 end, 50), 'no TSO diagnostic')
  note('diagnostic: ' .. errors()[1].message)

  -- Cursor outside any check function: the buffer's first violation.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local loaded = false
  vim.api.nvim_create_autocmd('User', { pattern = 'TsocheckTraceLoaded', callback = function() loaded = true end })
  run('TsocheckTrace')
  check(vim.wait(10000, function() return loaded end, 20), 'trace not loaded: ' .. last_note().msg)
  local qf = vim.fn.getqflist()
  check(#qf == #ref_steps, string.format('quickfix has %d entries, the CLI trace %d steps', #qf, #ref_steps))
  for i, item in ipairs(qf) do
    local s = ref_steps[i]
    check(item.bufnr == bufnr, 'entry ' .. i .. ' is in ' .. vim.api.nvim_buf_get_name(item.bufnr))
    check(item.lnum == s.line and item.col == s.column,
      string.format('entry %d at %d:%d, CLI step at %d:%d', i, item.lnum, item.col, s.line, s.column))
    check(type(s.label) == 'string' and item.text == s.label,
      'entry ' .. i .. ' text: "' .. item.text .. '", the report\'s label: "' .. tostring(s.label) .. '"')
  end
  check(has(vim.fn.getqflist({ title = 0 }).title, 'store_buffering'), 'quickfix title')
  local qfwin = false
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.bo[vim.api.nvim_win_get_buf(w)].buftype == 'quickfix' then qfwin = true end
  end
  check(qfwin, 'quickfix window not open')
  check(vim.fn.maparg(']s', 'n', false, true).buffer == 1 and vim.fn.maparg('[s', 'n', false, true).buffer == 1,
    ']s/[s not mapped in the traced buffer')
  check(vim.api.nvim_get_current_buf() == bufnr, 'cursor left the source window')
  note(#qf .. ' quickfix entries match the CLI trace (lines, columns, each text the report\'s label)')

  -- Walk: every step's line and buffers against the CLI; T2's load of x (SB)
  -- happens while x = 1 is still in T1's buffer.
  local sb_seen = false
  for i = 1, #ref_steps do
    run('TsocheckStep next')
    local s = ref_steps[i]
    check(vim.api.nvim_win_get_cursor(0)[1] == s.line,
      string.format('step %d: cursor on line %d, expected %d', i, vim.api.nvim_win_get_cursor(0)[1], s.line))
    local text = float_text()
    check(vim.startswith(text, s.label .. '   (' .. i .. '/'), 'step ' .. i .. ' float: ' .. text)
    local want = expected_buffers(s)
    check(has(text, want), string.format('step %d: float lacks "%s":\n%s', i, want, text))
    check(vim.fn.getqflist({ idx = 0 }).idx == i, 'quickfix index not synced at step ' .. i)
    if s.thread == 2 and s.event == 'load-memory' and s.address == 'x' then
      check(has(text, 'load x → 0'), 'SB load of x: ' .. text)
      if type(s.buffers_text) == 'string' then
        check(has(s.buffers_text, 'x = 1'), 'the report\'s buffers at the SB load: ' .. s.buffers_text)
      end
      sb_seen = true
      note('step ' .. i .. ' (T2 loads x → 0, line ' .. s.line .. ') float:\n  ' .. text:gsub('\n', '\n  '))
    end
    if s.event == 'flush' and s.address == 'x' then
      check(has(text, 'memory: ') and has(text, 'x = 1'), 'memory after the flush of x: ' .. text)
    end
  end
  check(sb_seen, 'no step where T2 loads x from memory')
  note('walked ' .. #ref_steps .. ' steps: lines, labels and store buffers as the CLI report words them'
    .. (type(ref_steps[1].buffers_text) == 'string' and '' or ' (a report without buffers_text)'))

  run('TsocheckStep next')
  check(has(last_note().msg, 'last step') and #floats() == 1, 'next past the end')
  run('TsocheckStep prev')
  local s = ref_steps[#ref_steps - 1]
  check(vim.api.nvim_win_get_cursor(0)[1] == s.line, 'prev: wrong line')
  check(has(float_text(), 'step ' .. (#ref_steps - 1) .. ' ·'), 'prev: float not updated')
  run('TsocheckStep first')
  check(vim.api.nvim_win_get_cursor(0)[1] == ref_steps[1].line and has(float_text(), 'step 1 ·'), 'first')
  run('TsocheckStep last')
  check(vim.api.nvim_win_get_cursor(0)[1] == ref_steps[#ref_steps].line, 'last')
  run('TsocheckStep prev')
  run('TsocheckStep prev')
  check(has(float_text(), 'step ' .. (#ref_steps - 2) .. ' ·'), 'prev twice')
  run('cfirst')
  run('cnext')
  run('TsocheckStep current')
  check(has(float_text(), 'step 2 ·') and vim.api.nvim_win_get_cursor(0)[1] == ref_steps[2].line, ':cnext + current')
  run('TsocheckStep close')
  check(#floats() == 0, 'close left a float')
  note('prev/first/last/current/close')

  -- Cursor inside the check function: that function, explicitly.
  vim.api.nvim_win_set_cursor(0, { ref_check.line + 2, 0 })
  loaded = false
  run('TsocheckTrace')
  check(vim.wait(10000, function() return loaded end, 20), 'trace from inside the check function')

  -- Errors are messages.
  local n = #notes
  run('TsocheckTrace no_such_check')
  check(vim.wait(5000, function() return #notes > n end, 20), 'no answer for an unknown function')
  check(last_note().level == vim.log.levels.ERROR and has(last_note().msg, 'no_such_check'),
    'unknown function: ' .. last_note().msg)
  run('TsocheckStep sideways')
  check(last_note().level == vim.log.levels.ERROR, 'bad step argument accepted')
  run('enew')
  run('TsocheckTrace')
  check(has(last_note().msg, 'no tsocheck language server'), 'no client: ' .. last_note().msg)
  note('errors reported as messages')

  -- A verified check: its status and message, no quickfix list.
  vim.fn.setqflist({}, 'f')
  run('edit ' .. vim.fn.fnameescape(os.getenv('TSOCHECK_FENCED')))
  local verified
  check(vim.wait(30000, function()
    local k = #notes
    vim.cmd('TsocheckTrace')
    vim.wait(2000, function() return #notes > k end, 20)
    if has(last_note().msg, 'verified') then verified = last_note().msg return true end
    return false
  end, 200), 'no verified result for sb_fenced.c: ' .. last_note().msg)
  check(#vim.fn.getqflist() == 0, 'a verified check filled the quickfix list')
  check(has(verified, 'store_buffering_fenced') and has(verified, 'no violation in any execution'), verified)
  note('verified check: ' .. verified)

  -- The loaded trace follows the buffer's results.
  run('edit ' .. vim.fn.fnameescape(file))
  check(vim.api.nvim_get_current_buf() == bufnr, 'back in sb.c')
  local trace_ns = vim.api.nvim_get_namespaces()['tsocheck_trace']
  local function highlights() return #vim.api.nvim_buf_get_extmarks(bufnr, trace_ns, 0, -1, {}) end
  local cleared = false
  vim.api.nvim_create_autocmd('User', { pattern = 'TsocheckTraceCleared', callback = function() cleared = true end })
  local function load_and_step()
    loaded = false
    run('TsocheckTrace store_buffering')
    check(vim.wait(10000, function() return loaded end, 20), 'trace not loaded again: ' .. last_note().msg)
    run('TsocheckStep first')
    run('TsocheckStep next')
    check(#floats() == 1 and highlights() > 0, 'no float or highlight on step 2')
    vim.api.nvim_set_current_win(vim.fn.bufwinid(bufnr))
  end
  load_and_step()
  -- An edit that moves every line down: the new trace replaces the old one in place.
  loaded = false
  vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { '// a line that moves the others' })
  check(vim.wait(30000, function() return loaded end, 50), 'the trace was not refreshed after the edit: ' .. last_note().msg)
  local cur = tsocheck.current()
  for i, st in ipairs(cur.steps) do
    check(st.line == ref_steps[i].line + 1, string.format('refreshed step %d on line %d, expected %d', i, st.line, ref_steps[i].line + 1))
  end
  local qf2 = vim.fn.getqflist()
  check(#qf2 == #ref_steps and qf2[1].lnum == ref_steps[1].line + 1, 'the quickfix list still has the old lines')
  check(#floats() == 0 and highlights() == 0, 'the old step float/highlight stayed after new results')
  check(has(last_note().msg, 'trace refreshed'), 'refresh message: ' .. last_note().msg)
  note('an edit moving the lines: quickfix list refreshed (step 1 on line ' .. qf2[1].lnum .. '), float and highlight closed')

  -- The fix (the fenced program): no violation, no trace.
  load_and_step()
  local ff = io.open(os.getenv('TSOCHECK_FENCED')); local fenced = ff:read('*a'); ff:close()
  cleared = false
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.split(fenced, '\n', { plain = true }))
  check(vim.wait(30000, function() return cleared end, 50), 'the trace stayed after the fix: ' .. last_note().msg)
  check(tsocheck.current().steps == nil and #vim.fn.getqflist() == 0, 'quickfix entries stayed after the fix')
  check(has(vim.fn.getqflist({ title = 0 }).title, 'trace cleared'), 'quickfix title: ' .. vim.fn.getqflist({ title = 0 }).title)
  check(#floats() == 0 and highlights() == 0, 'float/highlight stayed after the fix')
  check(vim.fn.maparg(']s', 'n', false, true).buffer ~= 1, ']s still mapped after the trace was cleared')
  note('the fix cleared the trace: ' .. last_note().msg)

  -- Deleting the buffer clears its trace.
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.fn.readfile(file))
  check(vim.wait(30000, function() return #errors() > 0 end, 50), 'no violation after restoring sb.c')
  load_and_step()
  cleared = false
  run('bdelete! ' .. bufnr)
  check(cleared and tsocheck.current().steps == nil and #floats() == 0, 'the trace stayed after :bdelete')
  note('deleting the buffer cleared the trace')

  -- Which check: the server's list of check functions, so a brace inside a
  -- string of the first check does not end its body early (the cursor below
  -- it is still in that check, which SC verifies, not the file's violation).
  run('edit ' .. vim.fn.fnameescape(os.getenv('TSOCHECK_BRACES')))
  local bb = vim.api.nvim_get_current_buf()
  check(vim.wait(30000, function() return #vim.diagnostic.get(bb, { severity = vim.diagnostic.severity.ERROR }) > 0 end, 50),
    'no violation in the braces file')
  local client = vim.lsp.get_active_clients()[1]
  local direct = client.request_sync('tsocheck/checks', { textDocument = { uri = vim.uri_from_bufnr(bb) } }, 10000, bb)
  check(direct and not direct.err and type(direct.result) == 'table', 'tsocheck/checks: ' .. vim.inspect(direct))
  local methods, real_request = {}, client.request
  client.request = function(method, ...) table.insert(methods, method) return real_request(method, ...) end
  local inside
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bb, 0, -1, false)) do
    if l:find('"}}"', 1, true) then inside = i + 1 end
  end
  check(inside, 'no string with braces in the braces file')
  vim.api.nvim_win_set_cursor(0, { inside, 0 })
  local n0 = #notes
  run('TsocheckTrace')
  check(vim.wait(10000, function() return #notes > n0 end, 20), 'no answer for :TsocheckTrace in the braces file')
  client.request = real_request
  check(has(last_note().msg, '`braces_in_strings`') and has(last_note().msg, 'verified'),
    'the cursor below a brace in a string picked: ' .. last_note().msg)
  check(vim.tbl_contains(methods, 'tsocheck/checks'), 'the check functions were not asked of the server: ' .. table.concat(methods, ', '))
  local names = require('tsocheck.trace').function_names(bb)
  check(vim.deep_equal(names, { 'braces_in_strings', 'store_buffering' }), 'completion: ' .. table.concat(names, ', '))
  note('a brace in a string: the cursor below it is in `braces_in_strings` (' .. last_note().msg
    .. '); check functions from tsocheck/checks')

  -- tsocheck/checks answered with an error: the server's words, and no
  -- check chosen by other means (the code lenses name checks too).
  check(vim.wait(10000, function() return #vim.lsp.codelens.get(bb) > 0 end, 50), 'no lenses for the braces file')
  client.request = function(method, params, handler, b)
    if method == 'tsocheck/checks' then
      handler({ code = -32602, message = 'document is not open' }, nil, { method = method, client_id = client.id, bufnr = b })
      return true, 0
    end
    return real_request(method, params, handler, b)
  end
  local n1 = #notes
  run('TsocheckTrace')
  vim.wait(500, function() return false end, 20)
  client.request = real_request
  check(#notes == n1 + 1 and last_note().level == vim.log.levels.ERROR
    and has(last_note().msg, 'document is not open') and has(last_note().msg, 'braces.c'),
    'an error from tsocheck/checks: ' .. vim.inspect({ unpack(notes, n1 + 1) }))
  note('tsocheck/checks failing: ' .. last_note().msg)
end

-- nested: the :edit in the test must fire FileType (and so attach the client).
h.run('tsocheck.nvim trace walking', test)
