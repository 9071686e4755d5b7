-- Headless Neovim 0.7 test of the project sample (a harness in tests/, the
-- queue in src/, linked through CMake's compile database): the harness gets
-- the PSO violation, the library file (never opened) gets hints at the stale
-- read and the buffered store with the trace, :TsocheckWorkspace checks the
-- database's files with progress, and fixing the library in the editor
-- re-checks the harness (verified, the lens says why, the hints go).
-- Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
local proj = os.getenv('TSOCHECK_PROJECT')
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, has, find, notes, echoes, lens_titles = h.note, h.check, h.has, h.find, h.notes, h.echoes,
  h.lens_titles
h.capture({ echo = true })

vim.opt.runtimepath:append(os.getenv('TSOCHECK_TREE') .. '/nvim')
local M = require('tsocheck')
M.setup({
  cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' },
  root_dir = proj,
  init_options = { compileCommandsDir = proj .. '/build' },
})

local sev = vim.diagnostic.severity
local lib = proj .. '/src/spsc.c'
local function lib_buf() return vim.uri_to_bufnr(vim.uri_from_fname(lib)) end
local function hints(bufnr)
  return vim.diagnostic.get(bufnr, { severity = sev.HINT })
end
local function line_of(bufnr, text)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if has(l, text) then return i - 1 end
  end
end

h.run('project sample: harness, library hints, workspace, fix in the library', function()
  local harness = vim.api.nvim_get_current_buf()
  -- 1. The harness: the library's PSO bug, linked through the database.
  check(vim.wait(90000, function() return #vim.diagnostic.get(harness, { severity = sev.ERROR }) > 0 end, 50),
    'no diagnostic on the harness')
  local e = vim.diagnostic.get(harness, { severity = sev.ERROR })[1]
  check(has(e.message, 'PSO'), 'harness diagnostic: ' .. e.message)
  note('harness: ' .. e.message:gsub('\n.*', ''))

  -- 2. The library, not open: hints at the stale read and the buffered store.
  check(not vim.api.nvim_buf_is_loaded(lib_buf()), 'the library was loaded')
  check(vim.wait(60000, function()
    local codes = {}
    for _, h in ipairs(hints(lib_buf())) do codes[h.code or ''] = true end
    return codes['stale-read'] and codes['buffered-store']
  end, 50), 'library hints: ' .. vim.inspect(hints(lib_buf())))
  for _, h in ipairs(hints(lib_buf())) do
    if h.code == 'stale-read' then
      local rel = h.user_data and h.user_data.lsp and h.user_data.lsp.relatedInformation or {}
      check(#rel > 0, 'the stale-read hint has no trace')
      check(has(h.message, 'test_spsc.c'), 'the hint does not name the harness: ' .. h.message)
      note('library hint (line ' .. (h.lnum + 1) .. ', ' .. #rel .. ' trace steps): ' .. h.message)
    end
  end

  -- 3. The workspace command: both files of the database, with progress.
  vim.cmd('TsocheckWorkspace')
  local W = require('tsocheck.workspace')
  check(vim.wait(120000, function() return W.last ~= nil end, 50), 'the workspace check did not answer')
  check(W.last.err == nil, 'workspace error: ' .. vim.inspect(W.last.err))
  local r = W.last.result
  check(r.files == 2 and r.checked == 2 and r.harnesses == 1 and r.violations == 1, 'workspace: ' .. vim.inspect(r))
  check(find(notes, 'workspace: checked 2/2 files: 1 harness, 1 violation'), 'notified: ' .. vim.inspect(notes))
  check(find(echoes, '2/2 files'), 'no progress echoed: ' .. table.concat(echoes, ' / '))
  note('workspace: ' .. find(notes, 'workspace: checked'))

  -- 4. Fix the library in the editor (release/acquire): the harness is re-checked.
  vim.cmd('edit ' .. vim.fn.fnameescape(lib))
  local lb = vim.api.nvim_get_current_buf()
  check(lb == lib_buf(), 'the library opened in another buffer')
  for from, to in pairs({ ['#define SPSC_PUBLISH memory_order_relaxed'] = '#define SPSC_PUBLISH memory_order_release',
                          ['#define SPSC_OBSERVE memory_order_relaxed'] = '#define SPSC_OBSERVE memory_order_acquire' }) do
    local l = line_of(lb, from)
    check(l, 'no line ' .. from)
    vim.api.nvim_buf_set_lines(lb, l, l + 1, false, { to })
  end
  check(vim.wait(90000, function()
    return #vim.diagnostic.get(harness, { severity = sev.ERROR }) == 0 and #hints(lb) == 0
  end, 50), 'after the fix: harness ' .. vim.inspect(vim.diagnostic.get(harness)) .. ', library ' .. vim.inspect(hints(lb)))
  note('library fixed: the harness verifies, the library hints are gone')
  check(vim.wait(10000, function() return has(lens_titles(harness), 're-checked: spsc.c changed') end, 50),
    'harness lens: ' .. lens_titles(harness))
  note('harness lens: ' .. lens_titles(harness))
end)
