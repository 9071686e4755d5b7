-- Headless Neovim 0.7 test of nvim/lua/tsocheck as a new user meets it:
-- the README's setup snippet runs verbatim (the clone's path filled in), the
-- server binary is found without `cmd` (development build or PATH), a missing
-- binary is one clear vim.notify error, one client serves every C buffer of
-- the root, lenses are refreshed after each check (never by hand here) and
-- run their commands client-side, status and progress reach the message area
-- and the statusline, and a file's TSOCHECK_WITH("model=sc") wins over the
-- editor's model setting. Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
--
-- Environment: TSOCHECK_SNIPPET (the README block), TSOCHECK_COPY (the nvim
-- directory of a copy of the module in a tree without a build), TSOCHECK_EXPECT_BIN and
-- TSOCHECK_EXPECT_SOURCE (what server_path() must find), TSOCHECK_SC (a copy
-- of sb.c annotated model=sc), TSOCHECK_FENCED (sb_fenced.c), TSOCHECK_SLOW
-- (a long check, for $/progress), TSOCHECK_KEYMAPS=1 when the snippet sets
-- the suggested keymaps and the statusline.
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, has, find, notes, echoes, lens_titles = h.note, h.check, h.has, h.find, h.notes, h.echoes,
  h.lens_titles

-- Notifications and echoes, as the user would see them.
h.capture({ echo = true })

-- The parts run on after one fails; each failure is a FAIL line.
local results = {}
local function step(f)
  local ok, err = xpcall(f, h.why)
  if not ok then table.insert(results, err) end
end

-- 1. No binary anywhere: a copy of the module in a tree without a build,
-- PATH without tsocheck. One clear error, no client, no Lua error.
step(function()
  check(vim.fn.exepath('tsocheck') == '', 'tsocheck is on PATH in the test (PATH must not have it)')
  local copy_dir = os.getenv('TSOCHECK_COPY')
  vim.opt.runtimepath:prepend(copy_dir)
  local copy = require('tsocheck')
  check(copy.server_path() == nil, 'the copy found a server')
  check(copy.server_path({ '/nonexistent/tsocheck', 'lsp' }) == nil, 'an explicit cmd was replaced')
  copy.setup({})
  local b = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(b, vim.fn.getcwd() .. '/scratch.c')
  vim.v.errmsg = ''
  local ok, err = pcall(function() vim.bo[b].filetype = 'c' end)
  check(ok and vim.v.errmsg == '', 'attaching without a binary raised: ' .. tostring(err) .. ' ' .. vim.v.errmsg)
  vim.bo[b].filetype = 'c' -- a second C buffer: no second message
  local errs = vim.tbl_filter(function(n) return n.level == vim.log.levels.ERROR end, notes)
  check(#errs == 1, 'expected one error notification, got ' .. #errs)
  check(has(errs[1].msg, 'no tsocheck binary') and has(errs[1].msg, 'looked at:')
    and has(errs[1].msg, '/build/lsp/tsocheck') and has(errs[1].msg, 'cmd ='), 'message: ' .. errs[1].msg)
  check(#vim.lsp.get_active_clients() == 0, 'a client was started without a binary')
  vim.api.nvim_buf_delete(b, { force = true })
  note('no binary: ' .. errs[1].msg)
end)
-- Forget the copy: the snippet below loads the clone's module.
for name in pairs(package.loaded) do
  if name == 'tsocheck' or name:sub(1, 9) == 'tsocheck.' then package.loaded[name] = nil end
end
vim.opt.runtimepath:remove(os.getenv('TSOCHECK_COPY'))
for i = #notes, 1, -1 do notes[i] = nil end

-- The README snippet, verbatim but for the clone's path.
dofile(os.getenv('TSOCHECK_SNIPPET'))
local M = require('tsocheck')

local function errors(bufnr)
  return vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
end
-- What is drawn: the virtual text of the lens namespace.
local function lens_text(bufnr, client_id)
  local ns = vim.lsp.codelens.__namespaces[client_id]
  local t = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    for _, c in ipairs(m[4].virt_text or {}) do table.insert(t, c[1]) end
  end
  return table.concat(t)
end
local function run_lens(bufnr, prefix)
  local lens
  for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
    if l.command and l.command.title:sub(1, #prefix) == prefix then lens = l end
  end
  check(lens, 'no lens "' .. prefix .. '" in: ' .. lens_titles(bufnr))
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  local real_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for _, it in ipairs(items) do
      if opts.format_item(it):sub(1, #prefix) == prefix then return on_choice(it) end
    end
    on_choice(nil)
  end
  local ok, err = pcall(vim.lsp.codelens.run)
  vim.ui.select = real_select
  check(ok, 'codelens.run raised: ' .. tostring(err))
end

h.run('module: README snippet, binary lookup, lenses, status, annotation over settings', function()
  local bufnr = vim.api.nvim_get_current_buf()
  step(function()
    local exe, source = M.server_path()
    check(exe == os.getenv('TSOCHECK_EXPECT_BIN') and source == os.getenv('TSOCHECK_EXPECT_SOURCE'),
      'server_path: ' .. tostring(exe) .. ' (' .. tostring(source) .. ')')
    check(vim.wait(30000, function() return #errors(bufnr) > 0 end, 50), 'no TSO diagnostic')
    local clients = vim.lsp.get_active_clients()
    check(#clients == 1 and clients[1].config.cmd[1] == exe, 'the client runs ' .. vim.inspect(clients[1] and clients[1].config.cmd))
    local cid = clients[1].id
    note('server found without cmd: ' .. exe .. ' (' .. source .. ')')

    -- Lenses arrive with the diagnostics: nobody calls codelens.refresh() here.
    check(vim.wait(10000, function() return has(lens_text(bufnr, cid), '✗ TSO violation — show trace') end, 50),
      'lens not drawn: ' .. lens_text(bufnr, cid))
    note('lenses drawn after the check: ' .. lens_titles(bufnr))

    -- Status: message area and statusline.
    check(vim.wait(5000, function() return M.status() == 'tsocheck: ✗ 1 violation under TSO' end, 50), 'status(): ' .. M.status())
    check(find(echoes, 'tsocheck: sb.c: checking…') and find(echoes, 'tsocheck: sb.c: ✗ 1 violation under TSO'),
      'echoed: ' .. table.concat(echoes, ' / '))
    if os.getenv('TSOCHECK_KEYMAPS') == '1' then
      local sl = vim.api.nvim_eval_statusline(vim.o.statusline, {}).str
      check(has(sl, 'tsocheck: ✗ 1 violation under TSO'), 'statusline: ' .. sl)
      for lhs, want in pairs({ ['<Leader>tt'] = 'TsocheckTrace' }) do
        local m = vim.fn.maparg(lhs, 'n', false, true)
        check(m.buffer == 1 and has(m.rhs, want), 'keymap ' .. lhs .. ': ' .. vim.inspect(m))
      end
      for _, lhs in ipairs({ 'K', '<Leader>ca', '<Leader>cl' }) do
        check(vim.fn.maparg(lhs, 'n', false, true).buffer == 1, 'keymap ' .. lhs .. ' missing')
      end
      note('statusline "' .. vim.trim(sl) .. '", keymaps set on attach')
    end
    note('status: ' .. M.status())
    for _, lhs in ipairs({ ']s', '[s' }) do
      check(vim.fn.maparg(lhs, 'n', false, true).buffer ~= 1, lhs .. ' mapped before a trace is loaded')
    end

    -- K (the README's mapping, else vim.lsp.buf.hover) on the failing line
    -- and on the check's TSOCHECK line: the server's hover, the violation's
    -- summary first (what failed, the stale read, the buffers then), every
    -- line of it in the float.
    local client = vim.lsp.get_client_by_id(cid)
    local uri = vim.uri_from_bufnr(bufnr)
    local tr = client.request_sync('tsocheck/trace', { uri = uri, ['function'] = 'store_buffering' }, 10000, bufnr)
    local summary = tr and tr.result and tr.result.violation and tr.result.violation.summary
    check(type(summary) == 'table' and #summary >= 2, 'the trace has no violation summary: ' .. vim.inspect(summary))
    local plain = function(t) return (t:gsub('[*`]', ''):gsub('%s+', ' ')) end
    local fail_line = errors(bufnr)[1].lnum
    local check_line
    for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
      if l:find('^TSOCHECK void store_buffering') then check_line = i - 1 end
    end
    local function hover_float()
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(w).relative ~= '' then
          return w, table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
        end
      end
    end
    for _, where in ipairs({ { 'failing line', fail_line }, { 'TSOCHECK line', check_line } }) do
      local res = client.request_sync('textDocument/hover', { textDocument = { uri = uri },
        position = { line = where[2], character = 2 } }, 10000, bufnr)
      local contents = res and res.result and res.result.contents
      local md = type(contents) == 'table' and contents.value or (type(contents) == 'string' and contents) or ''
      local at, step_at = plain(md):find(plain(summary[1]), 1, true), plain(md):find('step 1 ', 1, true)
      check(at and (not step_at or at < step_at), where[1] .. ': hover does not start with the summary "'
        .. summary[1] .. '":\n' .. md)
      vim.api.nvim_win_set_cursor(0, { where[2] + 1, 2 })
      if os.getenv('TSOCHECK_KEYMAPS') == '1' then
        vim.api.nvim_feedkeys('K', 'x', false)
      else
        vim.lsp.buf.hover()
      end
      local w, text
      check(vim.wait(5000, function() w, text = hover_float() return w ~= nil end, 20), where[1] .. ': K showed no float')
      local first = vim.trim(vim.split(md, '\n', { plain = true })[1])
      check(has(plain(text), plain(first)), where[1] .. ': the float lacks the hover\'s first line "' .. first .. '":\n' .. text)
      for _, l in ipairs(summary) do
        check(has(plain(text), plain(l)), where[1] .. ': the float lacks the summary\'s "' .. l .. '":\n' .. text)
      end
      vim.api.nvim_win_close(w, true)
      note(where[1] .. ': K shows the server\'s hover, its ' .. #summary .. ' summary lines first: ' .. first)
    end

    -- "show trace": the quickfix list and the first step's float.
    run_lens(bufnr, '✗ TSO violation')
    check(vim.wait(10000, function() return M.current().float ~= nil end, 50), 'show trace: no step float')
    local cur = M.current()
    check(cur.index == 1 and #vim.fn.getqflist() == #cur.steps and vim.fn.getqflist({ winid = 0 }).winid ~= 0,
      'show trace: quickfix ' .. #vim.fn.getqflist() .. ' items, index ' .. cur.index)
    check(vim.api.nvim_win_is_valid(cur.float), 'show trace: float not valid')
    -- ]s / [s: buffer-local in the traced C buffer, not in the quickfix window.
    for _, lhs in ipairs({ ']s', '[s' }) do
      local m = vim.api.nvim_buf_call(bufnr, function() return vim.fn.maparg(lhs, 'n', false, true) end)
      check(m.buffer == 1, lhs .. ' not mapped in the traced buffer: ' .. vim.inspect(m))
      local qfbuf = vim.fn.winbufnr(vim.fn.getqflist({ winid = 0 }).winid)
      local q = vim.api.nvim_buf_call(qfbuf, function() return vim.fn.maparg(lhs, 'n', false, true) end)
      check(q.buffer ~= 1, lhs .. ' mapped in the quickfix window')
    end
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(']s', true, false, true), 'x', false)
    check(M.current().index == 2, ']s: at step ' .. M.current().index)
    note('show trace lens: ' .. #cur.steps .. ' steps in the quickfix list, float at step 1')
    vim.cmd('TsocheckStep close')
    vim.cmd('cclose')
    vim.api.nvim_win_set_buf(0, bufnr)

    -- "re-run": re-checked, said so.
    run_lens(bufnr, 're-run')
    check(vim.wait(20000, function() return find(notes, 're-checked: `store_buffering` under TSO: violation') end, 50),
      're-run: notes ' .. vim.inspect(notes))
    note(find(notes, 're-checked:'))

    -- A fix: the lens must not stay stale.
    local fenced = vim.fn.readfile(os.getenv('TSOCHECK_FENCED'))
    vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, fenced)
    check(vim.wait(30000, function() return #errors(bufnr) == 0 end, 50), 'diagnostic stays after the fix')
    check(vim.wait(10000, function()
      local t = lens_text(bufnr, cid)
      return has(t, '✓ verified under TSO') and not has(t, '✗')
    end, 50), 'stale lenses after the fix: ' .. lens_text(bufnr, cid))
    check(vim.wait(5000, function() return M.status() == 'tsocheck: ✓ verified under TSO' end, 50), 'status after fix: ' .. M.status())
    note('after the fix: lens "' .. lens_titles(bufnr) .. '", status "' .. M.status() .. '"')

    -- Another C file of the same root: the same client; its annotation's
    -- model wins over init_options.model.
    vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TSOCHECK_SC')))
    local sc = vim.api.nvim_get_current_buf()
    check(sc ~= bufnr, 'no second buffer')
    check(vim.wait(30000, function() return M.status(sc) == 'tsocheck: ✓ verified under SC' end, 50),
      'model=sc file: status ' .. M.status(sc))
    check(#vim.lsp.get_active_clients() == 1, 'a second client was started: ' .. #vim.lsp.get_active_clients())
    local attached = vim.lsp.buf_get_clients(sc)
    check(attached[cid] ~= nil, 'the second buffer is not on the first client')
    check(#errors(sc) == 0, 'model=sc file has errors')
    check(vim.wait(10000, function() return has(lens_text(sc, cid), '✓ verified under SC') end, 50),
      'model=sc lens: ' .. lens_text(sc, cid))
    note('TSOCHECK_WITH("model=sc") with the snippet\'s init_options: ' .. lens_titles(sc) .. '; one client for ' .. vim.tbl_count(vim.lsp.get_buffers_by_client_id(cid)) .. ' buffers')

    -- A bounded result and a file that does not compile: status() says so, in the server's words.
    vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TSOCHECK_BOUNDED')))
    local bounded = vim.api.nvim_get_current_buf()
    local want = 'tsocheck: bounded under TSO: no violation with store buffers of at most 0 entries'
    check(vim.wait(30000, function() return M.status(bounded):sub(1, #want) == want end, 50), 'bounded file: status ' .. M.status(bounded))
    vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TSOCHECK_BROKEN')))
    local broken = vim.api.nvim_get_current_buf()
    check(vim.wait(30000, function() return has(M.status(broken), 'tsocheck: ✗ does not compile: ') end, 50),
      'broken file: status ' .. M.status(broken))
    check(has(M.status(broken), 'undeclared_name') and has(M.status(broken), '(line 2)'), 'broken file: status ' .. M.status(broken))
    note('bounded: "' .. M.status(bounded) .. '"; broken: "' .. M.status(broken) .. '"')

    -- A long check: $/progress reaches the message area and status().
    vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TSOCHECK_SLOW')))
    local slow = vim.api.nvim_get_current_buf()
    check(vim.wait(20000, function() return has(M.status(slow), 'executions') end, 20), 'slow: status ' .. M.status(slow))
    local seen_progress = vim.wait(20000, function()
      return find(echoes, 'tsocheck: checking ' .. vim.api.nvim_buf_get_name(slow)) ~= nil end, 20)
    check(seen_progress, 'no $/progress seen; echoes: ' .. table.concat(echoes, ' / '))
    note('progress: status "' .. M.status(slow) .. '"; echoed "' .. tostring(echoes[#echoes]) .. '"')
  end)
  check(#results == 0, table.concat(results, '\nFAIL '))
end)
