-- Headless Neovim 0.7 test of the order-upgrade quick fix under RC11 (the
-- module's init_options.model): the relaxed message-passing sample gets its
-- assertion error, the code action at the diagnostic offers "Make this load
-- memory_order_acquire", choosing it through vim.lsp.buf.code_action()
-- rewrites the flag load's order argument (nothing else), and after :write
-- the re-check leaves no error and the status reads verified under RC11.
-- Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, has = h.note, h.check, h.has
h.capture({ echo = true })

vim.opt.runtimepath:append(os.getenv('TSOCHECK_TREE') .. '/nvim')
local M = require('tsocheck')
M.setup({
  cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' },
  init_options = { model = 'rc11', checkOn = 'save' },
})

local function errors(bufnr)
  return vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
end

h.run('rc11: the order-upgrade quick fix makes the flag load acquire', function()
  local bufnr = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local load = 'atomic_load_explicit(&flag, memory_order_relaxed)'
  local load_line
  for i, l in ipairs(before) do
    if has(l, load) then load_line = i end
  end
  check(load_line, 'the copy has no relaxed flag load')

  -- 1. The violation under RC11 (the file itself names no model).
  check(vim.wait(60000, function() return #errors(bufnr) > 0 end, 50), 'no diagnostic under RC11')
  local errs = errors(bufnr)
  check(#errs == 1 and errs[1].code == 'rc11-assertion', 'expected one rc11-assertion error: ' .. vim.inspect(errs))
  local d = errs[1]
  check(has(d.message, 'RC11'), 'the message does not name RC11: ' .. d.message)
  -- The server's explanation of the weak read reaches the diagnostic as it is.
  check(has(d.message, 'although T1 stored data = 42') and has(d.message, 'does not synchronise'),
    'the message does not explain the stale read: ' .. d.message)
  note('diagnostic at line ' .. (d.lnum + 1) .. ': ' .. d.message)

  -- 2. The order upgrade among the code actions at the diagnostic (the
  -- fixes follow the verdict once the fix search ends: ask until it is there).
  local client = require('tsocheck.client').client_for(bufnr)
  check(client, 'no tsocheck client on the buffer')
  local title = 'Make this load memory_order_acquire (line ' .. load_line .. ')'
  local titles = {}
  local found = vim.wait(30000, function()
    local res = client.request_sync('textDocument/codeAction', {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
      context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, d.lnum) },
    }, 10000, bufnr)
    titles = {}
    for _, a in ipairs(res and res.result or {}) do table.insert(titles, a.title) end
    return vim.tbl_contains(titles, title)
  end, 200)
  check(found, 'no "' .. title .. '" among the code actions: ' .. table.concat(titles, ' | '))
  note('code actions at the diagnostic: ' .. table.concat(titles, ' | '))

  -- 3. Chosen as a user does: vim.lsp.buf.code_action() on the diagnostic's
  -- line, the upgrade picked in vim.ui.select.
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  local offered = {}
  local real_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for _, it in ipairs(items) do
      local t = opts.format_item and opts.format_item(it) or tostring(it)
      table.insert(offered, t)
      if has(t, title) then return on_choice(it) end
    end
    on_choice(nil)
  end
  local ok, err = pcall(vim.lsp.buf.code_action)
  check(ok, 'vim.lsp.buf.code_action raised: ' .. tostring(err))
  local want = before[load_line]:gsub('memory_order_relaxed', 'memory_order_acquire', 1)
  local edited = vim.wait(15000, function()
    return vim.api.nvim_buf_get_lines(bufnr, load_line - 1, load_line, false)[1] == want
  end, 50)
  vim.ui.select = real_select
  check(edited, 'the flag load was not upgraded; offered: ' .. table.concat(offered, ' | ') .. '; line: '
    .. vim.api.nvim_buf_get_lines(bufnr, load_line - 1, load_line, false)[1])
  local after = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  check(#after == #before, 'the edit changed the line count: ' .. #before .. ' -> ' .. #after)
  for i = 1, #before do
    if i ~= load_line then check(after[i] == before[i], 'line ' .. i .. ' changed: ' .. after[i]) end
  end
  note('line ' .. load_line .. ' now: ' .. vim.trim(after[load_line]))

  -- 4. Saved: the re-check under RC11 verifies the fix.
  vim.cmd('write')
  check(vim.wait(60000, function()
    return #errors(bufnr) == 0 and has(M.status(bufnr), 'verified under RC11')
  end, 50), 'after the save: ' .. #errors(bufnr) .. ' errors, status "' .. M.status(bufnr) .. '"')
  check(has(table.concat(vim.fn.readfile(vim.api.nvim_buf_get_name(bufnr)), '\n'),
    'atomic_load_explicit(&flag, memory_order_acquire)'), 'the file on disk lacks the acquire load')
  note('after the save: no error, status "' .. M.status(bufnr) .. '"')
end)
